package ops

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	xencoding "golang.org/x/text/encoding"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// encoding is how a text file's bytes spell its characters; an edit writes the file back
// in the encoding it found, with its byte-order mark.
type encoding struct {
	name string // utf-8, utf-16le, utf-16be
	bom  bool
}

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// detectEncoding reads the byte-order mark; without one a file is UTF-8 (or binary).
func detectEncoding(head []byte) encoding {
	switch {
	case bytes.HasPrefix(head, bomUTF8):
		return encoding{name: "utf-8", bom: true}
	case bytes.HasPrefix(head, bomUTF16LE):
		return encoding{name: "utf-16le", bom: true}
	case bytes.HasPrefix(head, bomUTF16BE):
		return encoding{name: "utf-16be", bom: true}
	}
	return encoding{name: "utf-8"}
}

// label names a UTF-8 file's encoding as a read reports it.
func (e encoding) label() string {
	if e.bom {
		return "utf-8-bom"
	}
	return "utf-8"
}

func (e encoding) codec() xencoding.Encoding {
	switch e.name {
	case "utf-16le":
		return xunicode.UTF16(xunicode.LittleEndian, xunicode.ExpectBOM)
	case "utf-16be":
		return xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM)
	}
	return nil
}

// decode turns the file's bytes into text, without the byte-order mark. UTF-8 that is not
// valid is refused: an edit would change bytes it did not mean to.
func (e encoding) decode(raw []byte) (string, error) {
	if c := e.codec(); c != nil {
		out, _, err := transform.Bytes(c.NewDecoder(), raw)
		if err != nil {
			return "", err
		}
		return string(out), nil
	}
	raw = bytes.TrimPrefix(raw, bomUTF8)
	if !utf8.Valid(raw) {
		return "", fmt.Errorf("the file is not valid UTF-8 and has no byte-order mark saying another encoding")
	}
	return string(raw), nil
}

// encode spells text back in the encoding, with the byte-order mark it had.
func (e encoding) encode(text string) ([]byte, error) {
	if c := e.codec(); c != nil {
		// ExpectBOM writes the mark itself.
		out, _, err := transform.Bytes(c.NewEncoder(), []byte(text))
		return out, err
	}
	if e.bom {
		return append(append([]byte{}, bomUTF8...), text...), nil
	}
	return []byte(text), nil
}
