package schemes

// CheckSize is the one early refusal of an object too large for the size
// limit: a fetcher that learns the size before the transfer (FTP SIZE, an
// HTTP Content-Length, a local file's length) asks it before any byte is
// transferred. size is the whole object's size, -1 when unknown; the
// transfer starts at byte offset; limit is Request.MaxBytes (0: none). What
// grows past the limit while it streams is stopped by the caller of the
// fetcher, not by the fetcher. what names the object for the message.
func CheckSize(what string, limit, size, offset int64) error {
	if limit <= 0 || size < 0 || size-offset <= limit {
		return nil
	}
	if what == "" {
		return Errorf(ErrTooLarge, "%d bytes exceed the size limit of %d bytes", size-offset, limit)
	}
	return Errorf(ErrTooLarge, "%s: %d bytes exceed the size limit of %d bytes", what, size-offset, limit)
}
