package browse

import (
	"context"
	"fmt"
	"strings"

	"github.com/rivo/tview"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// attributesURL is the URL of an item's Gopher+ attributes ("!"), from the
// item's own URL.
func attributesURL(raw string) (string, error) {
	u, err := fetch.ParseURL(raw)
	if err != nil {
		return "", err
	}
	a := u.GopherAttributes()
	if a == nil {
		return "", schemes.Errorf(schemes.ErrUsage, "%s is not a gopher URL", u.Redacted())
	}
	return a.String(), nil
}

// fetchAttributes fetches an item's Gopher+ attributes: the response's
// Info, which can describe a form (schemes.Former) and write itself for a
// person (schemes.WriteInfo).
func (b *Browser) fetchAttributes(ctx context.Context, raw string) (any, error) {
	au, err := attributesURL(raw)
	if err != nil {
		return nil, err
	}
	resp, err := b.cfg.Client.Do(ctx, &fetch.Request{URL: au})
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	if resp.Kind != schemes.KindInfo || resp.Info == nil {
		return nil, schemes.Errorf(schemes.ErrRefused, "the server gave no Gopher+ attributes")
	}
	return resp.Info, nil
}

// openForm reads a Gopher+ item's +ASK form and shows it.
func (b *Browser) openForm(e schemes.Entry) {
	b.setStatus("fetching the form of " + redacted(e.URL) + " ...")
	b.goFetch(func(ctx context.Context) {
		attrs, err := b.fetchAttributes(ctx, e.URL)
		if err != nil {
			b.fail(ctx, err)
			return
		}
		var form *schemes.Form
		if f, ok := attrs.(schemes.Former); ok {
			form = f.Form()
		}
		if form == nil {
			b.ui(func() { b.setStatus("error: the server gave no +ASK form for this item") })
			return
		}
		b.ui(func() { b.showForm(e, form) })
	})
}

// showForm draws a +ASK form, one widget a field: a line of text, a
// masked line for a secret, a text area for lines, a drop-down for a
// choice, a check box, a note as text. Submit sends the
// answers through the client, by question position.
func (b *Browser) showForm(e schemes.Entry, form *schemes.Form) {
	f := tview.NewForm()
	f.SetBorder(true).SetTitle(" " + clean(e.Name) + " ")
	type field struct {
		fl   schemes.FormField
		item int
	}
	var fields []field
	for _, fl := range form.Fields {
		q := clean(fl.Question)
		switch fl.Kind {
		case schemes.FieldNote:
			f.AddTextView("", q, 0, 1, false, false)
			continue
		case schemes.FieldSecret:
			f.AddPasswordField(q, "", 40, '*', nil)
		case schemes.FieldLines:
			f.AddTextArea(q, fl.Default, 40, 4, 0, nil)
		case schemes.FieldChoice:
			f.AddDropDown(q, cleanAll(fl.Choices), 0, nil)
		case schemes.FieldCheck:
			f.AddCheckbox(q, fl.Default == "1", nil)
		default:
			f.AddInputField(q, fl.Default, 40, nil, nil)
		}
		fields = append(fields, field{fl, f.GetFormItemCount() - 1})
	}
	f.AddButton("Submit", func() {
		var answers []string
		for _, fd := range fields {
			answers = append(answers, fmt.Sprintf("%d=%s", fd.fl.Position, formValue(f.GetFormItem(fd.item), fd.fl)))
		}
		b.closeForm()
		b.fetchPage(fetch.Request{URL: e.URL, Call: schemes.Call{Form: answers}}, e.Name)
	})
	f.AddButton("Cancel", b.closeForm)
	f.SetCancelFunc(b.closeForm)
	b.pages.AddPage("form", f, true, true)
	b.inForm = true
	b.app.SetFocus(f)
	b.setStatus("Tab next field, Enter on Submit sends, Esc cancels")
}

// formValue is a form widget's answer to its field.
func formValue(item tview.FormItem, fl schemes.FormField) string {
	switch w := item.(type) {
	case *tview.InputField:
		return w.GetText()
	case *tview.TextArea:
		return w.GetText()
	case *tview.DropDown:
		i, _ := w.GetCurrentOption()
		if i >= 0 && i < len(fl.Choices) {
			return fl.Choices[i]
		}
	case *tview.Checkbox:
		if w.IsChecked() {
			return "1"
		}
		return "0"
	}
	return fl.Default
}

func cleanAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clean(s)
	}
	return out
}

// closeForm removes the form and gives the keys back to the page.
func (b *Browser) closeForm() {
	if !b.inForm {
		return
	}
	b.inForm = false
	b.pages.RemovePage("form")
	b.showPage()
}

// showInfo shows the URL of the selected item (or the page) and, for a
// Gopher+ item, its attributes, as a page of text.
func (b *Browser) showInfo() {
	var e schemes.Entry
	if sel, ok := b.selectedEntry(); ok {
		e = sel
	} else if b.cur != nil && b.cur.req.URL != "" {
		var err error
		if e, err = entryFor(b.cur.req.URL, b.cur.title); err != nil {
			b.showError(err)
			return
		}
	} else {
		return
	}
	var head strings.Builder
	fmt.Fprintf(&head, "Name: %s\n", e.Name)
	if e.URL != "" {
		fmt.Fprintf(&head, "URL:  %s\n", redacted(e.URL))
	}
	fmt.Fprintf(&head, "Type: %s\n", e.Type)
	if g := e.Gopher; g != nil {
		fmt.Fprintf(&head, "Gopher type: %s  Gopher+: %q\n", g.Type, g.Plus)
	}
	if e.Size >= 0 {
		fmt.Fprintf(&head, "Size: %s\n", sizeText(e.Size))
	}
	if d := dateText(e); d != "" {
		fmt.Fprintf(&head, "Date: %s\n", d)
	}
	p := &page{title: "About " + e.Name, kind: kindText, match: -1, wrap: true}
	if e.Gopher == nil || e.Gopher.Plus == "" || e.URL == "" {
		p.text = []byte(head.String())
		b.push(p)
		return
	}
	b.setStatus("fetching the Gopher+ attributes ...")
	b.goFetch(func(ctx context.Context) {
		attrs, err := b.fetchAttributes(ctx, e.URL)
		text := head.String() + "\nGopher+ attributes:\n"
		if err != nil {
			text += "  (" + err.Error() + ")\n"
		} else {
			var sb strings.Builder
			if err := schemes.WriteInfo(&sb, attrs); err != nil {
				sb.WriteString("  (" + err.Error() + ")\n")
			}
			text += sb.String()
		}
		p.text = []byte(text)
		b.ui(func() { b.push(p) })
	})
}
