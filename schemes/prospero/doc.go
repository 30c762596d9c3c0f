// Package prospero is gofer's fetcher for prospero URLs (RFC 1738 §3.11):
// a client of the Prospero Directory Service, protocol version 5 ("The
// Prospero Protocol", USC/ISI, with its appendix "Asynchronous Reliable
// Delivery Protocol"), over ARDP version 0 on UDP, port 1525 by default.
//
// # What a fetch does
//
// A prospero URL, prospero://host:port/hsoname;field=value, names an object
// by its host-specific object name (hsoname) on one Prospero server. The
// server does not hold the object's bytes: it knows how to reach them, as
// the object's ACCESS-METHOD attributes. So a fetch is a resolution. The
// fetcher sends one request message of LF-terminated lines:
//
//	VERSION 5 gofer
//	AUTHENTICATE '' UNAUTHENTICATED user
//	GET-OBJECT-INFO #ALL ASCII hsoname version
//	SELECT OBJECT FIELD name SEQUENCE value     (one per other field)
//
// VERSION states the protocol version; AUTHENTICATE of type UNAUTHENTICATED
// names the asking user (the Fetcher's User, else the process's account
// name); GET-OBJECT-INFO asks for every attribute of the
// object. The version token is the URL's version (after %00, as
// draft-ietf-uri-url-03 writes it) or its OBJECT-VERSION field, else 0, the
// latest version. Every other ;field=value of the URL identifies the target
// further, as a SELECT line on that field. Tokens holding spaces or quotes
// are quoted with single quotes, a quote inside doubled; an empty token is
// two quotes with nothing between. A part of the URL holding CR, LF or NUL is refused before anything is
// sent.
//
// The reply is lines too: ATTRIBUTE applies-to namespace name [value-type]
// values... for each attribute value, or NONE-FOUND, or a failure (FAILURE,
// ERROR, VERSION-NOT-SUPPORTED, FORWARDED, UNRESOLVED: the server refused,
// schemes.ErrRefused); WARNING lines become warnings. An ACCESS-METHOD value is a
// tuple: method, host type, host, name type, name, then the method's own
// elements; an empty host or name means the object's own server or hsoname,
// and a host may carry a port as "host(port)". The first value gofer can
// follow becomes a URL:
//
//	AFTP, FTP   ftp://host/path;type=i (BINARY) or ;type=a (TEXT); a path
//	            from the root keeps its '/' as %2F in the first segment
//	GOPHER      gopher://host/Tselector, T the sixth element (the item type),
//	            else the selector's first character
//	WAIS        wais://host/database, or .../database/wtype/wpath with a
//	            sixth and seventh element
//	HTTP        http://host/path
//	NNTP        nntp://host/group/number, or news:message-id
//
// and the fetch answers schemes.KindRedirect with that Location. The front
// door guards the target as it guards a URL typed by the user (its port
// policy above all: a resolution cannot reach a port the guard refuses) and
// fetches it with gofer's own fetcher for its scheme. Methods that name no
// protocol gofer speaks (LOCAL, NFS, AFS) are skipped; an object with none
// it can follow is refused.
//
// An object whose BASE-TYPE field is DIRECTORY (or DIRECTORY+FILE without a
// usable access method) is listed instead, with a second message that names
// the directory and lists all its components with their attributes:
//
//	DIRECTORY ASCII hsoname
//	LIST ATTRIBUTES COMPONENTS
//
// Each reply line LINK type target name host-type host name-type hsoname
// version becomes an entry whose URL is a prospero URL of the link; an
// EXTERNAL link becomes the URL of its access method, as RFC 1738 says
// external links are written.
//
// # ARDP
//
// Each message travels as one ARDP message over a connected UDP socket
// opened through Request.Dialer ("udp"). A packet starts with a header
// whose octet 0 holds the ARDP version in its two high bits (0) and the
// header length in its low six; then, big-endian, the connection id
// (octets 1-2), the packet number (3-4; 0 marks an unsequenced control
// packet), the total number of packets (5-6), the number through which the
// sender has received every packet (7-8), the time the server expects to
// need, in seconds (9-10), flags (11; 0x80 asks for an acknowledgement)
// and an option (12; 1 is the server's refusal). A header may stop after
// any field; the rest take their defaults. Each request gets a fresh
// connection id; packets of another connection are ignored.
//
// The client sends its request, then reads reply packets and puts them in
// order by packet number. A packet that asks for an acknowledgement is
// acknowledged with a control packet carrying the received-through count,
// and so is the complete reply. When the server is silent the client waits
// as ARDP does: 4 s, then twice as long after each of three retries,
// resending the request while nothing has come back and otherwise
// acknowledging what did arrive, which makes the server resend the rest. A
// shorter idle timeout shrinks the schedule so that all the waits together
// stay within it (the first wait is at most a fifteenth of it); a packet
// that brings new data starts the schedule again, and a server's expected
// wait stretches it, never beyond the idle timeout. A server that never
// answers (or a host that reports the port unreachable, which UDP cannot
// tell from loss) is schemes.ErrTimeout; a packet that is not ARDP version
// 0, or a reply that is not Prospero, is schemes.ErrRefused with the
// reason.
//
// Proxies cannot carry UDP: the dialer refuses a UDP dial when a proxy
// applies to the target rather than leaving the proxy silently, and the
// error says so (NO_PROXY lets a Prospero server be reached directly).
//
// # Transcript
//
// With Request.Transcript every packet is shown as a bracketed header
// in words, then its text line by line ("> " sent, "< " received), with the
// client's retransmissions and the resolved URL on "* prospero:" lines.
package prospero
