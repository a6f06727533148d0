package webfetch

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
)

// sniffBytes is how much of a body the statistical detector looks at.
const sniffBytes = 64 << 10

// decode turns body into UTF-8. The charset comes from a byte order mark, the
// Content-Type header, a <meta> in the first 1024 bytes (the HTML standard's prescan),
// and, when none says, from the bytes themselves: valid UTF-8 is taken as such, anything
// else goes to a statistical detector (GBK, Big5, Shift-JIS, EUC-KR, … pages that declare
// nothing), windows-1252 being the last resort.
func decode(body []byte, contentType string) (text, name string) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain && !utf8.Valid(body) {
		if e, n, ok := sniff(body); ok {
			enc, name = e, n
		}
	}
	if name == "utf-8" {
		return string(bytes.ToValidUTF8(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), []byte("\uFFFD"))), name
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD"), name
	}
	return string(out), name
}

func sniff(body []byte) (encoding.Encoding, string, bool) {
	if len(body) > sniffBytes {
		body = body[:sniffBytes]
	}
	r, err := chardet.NewHtmlDetector().DetectBest(body)
	if err != nil || r.Confidence < 30 {
		return nil, "", false
	}
	e, err := htmlindex.Get(r.Charset)
	if err != nil {
		return nil, "", false
	}
	n, _ := htmlindex.Name(e)
	return e, n, true
}
