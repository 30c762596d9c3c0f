package browse

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// Client is what the browser fetches through. *fetch.Client implements it;
// its guard checks every URL before any connection is opened.
type Client interface {
	Do(ctx context.Context, r *fetch.Request) (*fetch.Response, error)
}

// Config sets a Browser up.
type Config struct {
	Client Client
	// DownloadDir receives downloads; "" means the current directory.
	DownloadDir string
	// ConfigDir holds the bookmarks file; "" means $XDG_CONFIG_HOME/gofer,
	// else ~/.config/gofer.
	ConfigDir string
	// Screen is drawn on; nil means the terminal.
	Screen tcell.Screen
	// Stdin and Stdout connect telnet sessions and handed-off programs;
	// nil means the process's own.
	Stdin  io.Reader
	Stdout io.Writer
	// MaxText bounds what the pager holds of one text (0: DefaultMaxText);
	// the rest can still be downloaded.
	MaxText int64
	// MaxItems bounds what a listing page holds (0: DefaultMaxItems).
	MaxItems int
	// Captured, when set, says when the page of a URL was captured, false
	// when it was not: the browser is browsing an archive (Client answers
	// from it), shows each page's capture time in its title, and opens
	// http and https pages as text.
	Captured func(url string) (time.Time, bool)
}

// Defaults for Config's limits.
const (
	DefaultMaxText  = 8 << 20
	DefaultMaxItems = 100000
)

// Browser is one interactive session.
type Browser struct {
	cfg Config
	app *tview.Application

	title  *tview.TextView
	pages  *tview.Pages
	table  *tview.Table
	pager  *tview.TextView
	bottom *tview.Pages
	status *tview.TextView
	input  *tview.InputField

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	stopping bool

	// The rest belongs to the interface's goroutine.
	cur         *page
	back, fwd   []*page
	fetchCancel context.CancelFunc
	inPrompt    bool
	inForm      bool
	onInput     func(text string, ok bool)
	onYesNo     func(yes bool) // a y/n question is asked (askCert)
	warning     string         // the last warning, kept for the next page's status
	lastFocus   tview.Primitive
}

// New returns a Browser; Run starts it.
func New(cfg Config) *Browser {
	if cfg.Stdin == nil {
		cfg.Stdin = os.Stdin
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.MaxText <= 0 {
		cfg.MaxText = DefaultMaxText
	}
	if cfg.MaxItems <= 0 {
		cfg.MaxItems = DefaultMaxItems
	}
	b := &Browser{cfg: cfg, app: tview.NewApplication()}
	if cfg.Screen != nil {
		b.app.SetScreen(cfg.Screen)
	}
	b.build()
	return b
}

func (b *Browser) build() {
	b.title = tview.NewTextView().SetDynamicColors(false)
	b.title.SetBackgroundColor(tcell.ColorNavy)
	b.table = tview.NewTable().SetSelectable(true, false)
	b.table.SetSelectedFunc(func(row, _ int) { b.openRow(row) })
	b.pager = tview.NewTextView().SetRegions(true).SetDynamicColors(false).SetWrap(true)
	b.pages = tview.NewPages().
		AddPage("listing", b.table, true, true).
		AddPage("pager", b.pager, true, false)
	b.status = tview.NewTextView().SetDynamicColors(false)
	b.input = tview.NewInputField()
	b.input.SetDoneFunc(func(key tcell.Key) {
		switch key {
		case tcell.KeyEnter:
			b.endPrompt(b.input.GetText(), true)
		case tcell.KeyEscape:
			b.endPrompt("", false)
		}
	})
	b.bottom = tview.NewPages().
		AddPage("status", b.status, true, true).
		AddPage("prompt", b.input, true, false)
	root := tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(b.title, 1, 0, false).
		AddItem(b.pages, 0, 1, true).
		AddItem(b.bottom, 1, 0, false)
	b.app.SetRoot(root, true).SetFocus(b.table)
	b.app.SetInputCapture(b.key)
}

// Run opens start (a URL; "" shows the bookmarks) and runs the interface
// until the person quits or ctx ends. Every fetch it started has ended
// when it returns.
func (b *Browser) Run(ctx context.Context, start string) error {
	b.ctx, b.cancel = context.WithCancel(ctx)
	defer b.cancel()
	stop := context.AfterFunc(ctx, b.quit)
	defer stop()
	// The event loop has not started: the widgets are still this
	// goroutine's to set up.
	b.showHelpLine()
	if start == "" {
		b.viewBookmarks()
	} else {
		b.openURL(start)
	}
	err := b.app.Run()
	b.mu.Lock()
	quitting := b.stopping
	b.stopping = true
	b.mu.Unlock()
	b.cancel()
	if quitting {
		// quit stopped the loop once every fetch had ended.
		b.wg.Wait()
	}
	// Otherwise the loop ended on its own (the terminal failed): a fetch
	// may be blocked handing it an update, so it is not waited for.
	return err
}

// quit ends the interface once every fetch has ended: the fetches are
// cancelled, and no update from them is queued after the event loop stops.
// Any goroutine may call it.
func (b *Browser) quit() {
	b.mu.Lock()
	if b.stopping {
		b.mu.Unlock()
		return
	}
	b.stopping = true
	b.mu.Unlock()
	b.cancel()
	go func() {
		b.wg.Wait()
		b.app.Stop()
	}()
}

// goFetch runs f off the interface's goroutine, unless the browser is
// stopping; f's updates of the interface go through ui.
func (b *Browser) goFetch(f func(ctx context.Context)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopping {
		return
	}
	if b.fetchCancel != nil {
		b.fetchCancel()
	}
	ctx, cancel := context.WithCancel(b.ctx)
	b.fetchCancel = cancel
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer cancel()
		f(ctx)
	}()
}

// fetchThen says status, fetches req off the interface's goroutine and
// hands the response to then, closing it after; a failure goes to the
// status line instead. A gemini server whose certificate changed is
// asked about first (askCert): accepted, the fetch runs again.
func (b *Browser) fetchThen(req fetch.Request, status string, then func(ctx context.Context, resp *fetch.Response)) {
	b.fetchAfter(nil, req, status, then)
}

// fetchAfter is fetchThen running first, when not nil, before the fetch,
// on the fetch's goroutine.
func (b *Browser) fetchAfter(first func() error, req fetch.Request, status string, then func(ctx context.Context, resp *fetch.Response)) {
	b.setStatus(status)
	b.goFetch(func(ctx context.Context) {
		if first != nil {
			if err := first(); err != nil {
				b.fail(ctx, err)
				return
			}
		}
		resp, err := b.cfg.Client.Do(ctx, &req)
		var cc *schemes.CertChangedError
		if errors.As(err, &cc) && ctx.Err() == nil {
			b.ui(func() {
				b.askCert(cc, func() { b.fetchAfter(cc.Accept, req, status, then) })
			})
			return
		}
		var cr *schemes.CertRequiredError
		if errors.As(err, &cr) && ctx.Err() == nil {
			b.ui(func() {
				b.askIdentity(cr, func() { b.fetchAfter(cr.NewIdentity, req, status, then) })
			})
			return
		}
		if err != nil {
			b.fail(ctx, err)
			return
		}
		defer resp.Close()
		then(ctx, resp)
	})
}

// ui runs f on the interface's goroutine and redraws; it reports false,
// without running f, once the browser is stopping. Only fetch goroutines
// call it.
func (b *Browser) ui(f func()) bool {
	b.mu.Lock()
	stopping := b.stopping
	b.mu.Unlock()
	if stopping {
		return false
	}
	b.app.QueueUpdateDraw(f)
	return true
}

// Warn shows a warning (the guard's, for one) on the status line. It may be
// called from any goroutine but the interface's own.
func (b *Browser) Warn(msg string) {
	b.ui(func() {
		b.warning = oneLine(msg)
		b.setStatus("warning: " + b.warning)
	})
}

// Prompt asks the person a question on the bottom line (secret: masked)
// for a fetch that needs an answer (an FTP password, say). Only fetch
// goroutines call it.
func (b *Browser) Prompt(question string, secret bool) (string, error) {
	type answer struct {
		text string
		ok   bool
	}
	ch := make(chan answer, 1)
	if !b.ui(func() {
		b.prompt(strings.TrimRight(question, " "), "", secret, func(t string, ok bool) { ch <- answer{t, ok} })
	}) {
		return "", schemes.Errorf(schemes.ErrInterrupted, "the browser is closing")
	}
	select {
	case a := <-ch:
		if !a.ok {
			return "", schemes.Errorf(schemes.ErrInterrupted, "question %q not answered", strings.TrimSpace(question))
		}
		return a.text, nil
	case <-b.ctx.Done():
		return "", schemes.Errorf(schemes.ErrInterrupted, "the browser is closing")
	}
}

// fail reports a fetch goroutine's error on the status line, unless the
// fetch was cancelled (Esc, or a newer fetch took its place): then the
// error is only the cancel's echo.
func (b *Browser) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	b.ui(func() { b.showError(err) })
}

// setStatus writes the status line.
func (b *Browser) setStatus(s string) {
	b.status.SetText(clean(oneLine(s)))
}

// pageStatus is setStatus for a page just shown: a warning that came with
// its fetch stays in front.
func (b *Browser) pageStatus(s string) {
	if b.warning != "" {
		s = "warning: " + b.warning + " | " + s
		b.warning = ""
	}
	b.setStatus(s)
}

func (b *Browser) showHelpLine() {
	b.setStatus("? help  q quit  g open URL  Left back  a add bookmark  v bookmarks")
}

// showError puts a fetch's failure on the status line, the guard's
// refusals included.
func (b *Browser) showError(err error) {
	var fe *fetch.Error
	msg := err.Error()
	if errors.As(err, &fe) && fe.Err != nil {
		msg = fe.Err.Error()
	}
	b.pageStatus("error: " + msg)
}

// prompt shows an input line; done gets the text, or ok false for Esc.
func (b *Browser) prompt(label, initial string, secret bool, done func(text string, ok bool)) {
	if b.inPrompt {
		b.endPrompt("", false)
	}
	b.inPrompt = true
	b.onInput = done
	b.lastFocus = b.app.GetFocus()
	mask := rune(0)
	if secret {
		mask = '*'
	}
	b.input.SetLabel(label + " ").SetText(initial).SetMaskCharacter(mask)
	b.bottom.SwitchToPage("prompt")
	b.app.SetFocus(b.input)
}

func (b *Browser) endPrompt(text string, ok bool) {
	if !b.inPrompt {
		return
	}
	b.inPrompt = false
	done := b.onInput
	b.onInput = nil
	b.input.SetText("")
	b.bottom.SwitchToPage("status")
	if b.lastFocus != nil {
		b.app.SetFocus(b.lastFocus)
	}
	if done != nil {
		done(text, ok)
	}
}

// showPage shows the current page's view again, and gives it the keys,
// after something drawn over it (a form, a question) is gone.
func (b *Browser) showPage() {
	if b.cur != nil && b.cur.kind == kindText {
		b.pages.SwitchToPage("pager")
		b.focus(b.pager)
	} else {
		b.pages.SwitchToPage("listing")
		b.focus(b.table)
	}
}

// focus gives p the keys, or, while a prompt has them, gives them to p
// when the prompt ends.
func (b *Browser) focus(p tview.Primitive) {
	if b.inPrompt {
		b.lastFocus = p
		return
	}
	b.app.SetFocus(p)
}

// key handles the browser's own keys before the focused widget sees them.
func (b *Browser) key(ev *tcell.EventKey) *tcell.EventKey {
	if ev.Key() == tcell.KeyCtrlC {
		b.quit()
		return nil
	}
	if b.inPrompt {
		return ev
	}
	if b.onYesNo != nil {
		b.yesNo(ev.Rune(), ev.Key() == tcell.KeyEscape)
		return nil
	}
	if b.inForm {
		if ev.Key() == tcell.KeyEscape {
			b.closeForm()
			return nil
		}
		return ev
	}
	onPager := b.cur != nil && b.cur.kind == kindText
	switch ev.Key() {
	case tcell.KeyLeft, tcell.KeyBackspace, tcell.KeyBackspace2:
		b.goBack()
		return nil
	case tcell.KeyEscape:
		if b.fetchCancel != nil {
			b.fetchCancel()
			b.setStatus("cancelled")
		}
		return nil
	case tcell.KeyF1:
		b.showHelp()
		return nil
	case tcell.KeyRight:
		if onPager {
			return ev
		}
		b.openRow(b.selectedRow())
		return nil
	case tcell.KeyRune:
	default:
		return ev
	}
	switch ev.Rune() {
	case 'q', 'Q':
		b.quit()
	case '?', 'h':
		b.showHelp()
	case 'g':
		b.prompt("Open URL:", "", false, func(t string, ok bool) {
			if ok && strings.TrimSpace(t) != "" {
				b.openURL(strings.TrimSpace(t))
			}
		})
	case 'u':
		b.goBack()
	case 'f':
		b.goForward()
	case 'a':
		b.addBookmark()
	case 'v':
		b.viewBookmarks()
	case '=':
		b.showInfo()
	case 'd':
		b.downloadCurrent()
	default:
		if onPager {
			return b.pagerKey(ev)
		}
		return b.listingKey(ev)
	}
	return nil
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", " ")
}
