package docparse

import (
	"bytes"
	"path/filepath"
	"strings"
)

// Format names a reader of this package.
type Format string

const (
	FormatPDF      Format = "pdf"
	FormatDOCX     Format = "docx"
	FormatPPTX     Format = "pptx"
	FormatXLSX     Format = "xlsx"
	FormatODT      Format = "odt"
	FormatEPUB     Format = "epub"
	FormatHTML     Format = "html"
	FormatMarkdown Format = "markdown"
	FormatCSV      Format = "csv"
	FormatCode     Format = "code"
	FormatText     Format = "text"
	// FormatEncryptedOffice is an OOXML file saved with a password: Office wraps it in a
	// compound file instead of a zip.
	FormatEncryptedOffice Format = "encrypted-office"
	// FormatBinary is anything else that is not text.
	FormatBinary Format = "binary"
)

var extFormats = map[string]Format{
	".pdf": FormatPDF, ".docx": FormatDOCX, ".docm": FormatDOCX, ".pptx": FormatPPTX,
	".pptm": FormatPPTX, ".xlsx": FormatXLSX, ".xlsm": FormatXLSX, ".odt": FormatODT,
	".epub": FormatEPUB, ".html": FormatHTML, ".htm": FormatHTML, ".xhtml": FormatHTML,
	".md": FormatMarkdown, ".markdown": FormatMarkdown, ".mdx": FormatMarkdown,
	".csv": FormatCSV, ".tsv": FormatCSV, ".txt": FormatText, ".text": FormatText,
	".log": FormatText, ".rst": FormatText, ".adoc": FormatText, ".org": FormatText,
}

// codeExts are source files: read as text with line positions and no paragraph merging.
var codeExts = map[string]bool{
	".go": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".tsx": true,
	".jsx": true, ".java": true, ".kt": true, ".kts": true, ".scala": true, ".c": true, ".h": true,
	".cc": true, ".cpp": true, ".cxx": true, ".hpp": true, ".hh": true, ".cs": true, ".rs": true,
	".rb": true, ".php": true, ".swift": true, ".m": true, ".mm": true, ".lua": true, ".pl": true,
	".pm": true, ".r": true, ".jl": true, ".dart": true, ".ex": true, ".exs": true, ".erl": true,
	".hs": true, ".ml": true, ".fs": true, ".clj": true, ".el": true, ".vim": true, ".zig": true,
	".nim": true, ".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".ps1": true,
	".bat": true, ".cmd": true, ".sql": true, ".proto": true, ".graphql": true, ".css": true,
	".scss": true, ".less": true, ".vue": true, ".svelte": true, ".json": true, ".jsonc": true,
	".yaml": true, ".yml": true, ".toml": true, ".ini": true, ".cfg": true, ".conf": true,
	".xml": true, ".gradle": true, ".cmake": true, ".mk": true, ".tf": true, ".nix": true,
	".dockerfile": true, ".makefile": true,
}

var codeNames = map[string]bool{"makefile": true, "dockerfile": true, "gnumakefile": true,
	"cmakelists.txt": true, "jenkinsfile": true, "rakefile": true, "gemfile": true}

var (
	magicPDF = []byte("%PDF-")
	magicZip = []byte("PK\x03\x04")
	magicCFB = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
)

// Detect picks a reader from the name's extension and the first bytes of the content; the
// content wins when they disagree (a PDF named .txt is a PDF, an executable named .md is
// binary).
func Detect(name string, head []byte) Format {
	ext := strings.ToLower(filepath.Ext(name))
	byExt := extFormats[ext]
	switch {
	case bytes.HasPrefix(head, magicPDF) || bytes.Contains(head[:min(len(head), 1024)], magicPDF):
		return FormatPDF
	case bytes.HasPrefix(head, magicZip):
		return sniffZip(byExt, head)
	case bytes.HasPrefix(head, magicCFB):
		if byExt == FormatDOCX || byExt == FormatXLSX || byExt == FormatPPTX {
			return FormatEncryptedOffice
		}
		return FormatBinary
	}
	if isBinary(head) {
		return FormatBinary
	}
	base := strings.ToLower(filepath.Base(name))
	switch {
	case byExt == FormatHTML, byExt == FormatMarkdown, byExt == FormatCSV:
		return byExt
	case codeExts[ext] || codeNames[base]:
		return FormatCode
	case byExt == FormatText:
		return FormatText
	case looksLikeHTML(head):
		return FormatHTML
	}
	return FormatText
}

// sniffZip tells the zip-based formats apart by the names of their first entries.
func sniffZip(byExt Format, head []byte) Format {
	switch {
	case bytes.Contains(head, []byte("application/epub+zip")):
		return FormatEPUB
	case bytes.Contains(head, []byte("application/vnd.oasis.opendocument.text")):
		return FormatODT
	case bytes.Contains(head, []byte("word/")):
		return FormatDOCX
	case bytes.Contains(head, []byte("ppt/")):
		return FormatPPTX
	case bytes.Contains(head, []byte("xl/")):
		return FormatXLSX
	}
	switch byExt {
	case FormatDOCX, FormatPPTX, FormatXLSX, FormatODT, FormatEPUB:
		return byExt // entries in an unusual order: the reader checks the parts it needs
	}
	return FormatBinary
}

func looksLikeHTML(head []byte) bool {
	h := bytes.ToLower(bytes.TrimLeft(head[:min(len(head), 512)], " \t\r\n\ufeff"))
	return bytes.HasPrefix(h, []byte("<!doctype html")) || bytes.HasPrefix(h, []byte("<html"))
}

// isBinary reports content that is not text in any encoding this package decodes: NUL
// bytes outside UTF-16, or more than one byte in ten a control character. Bytes that are
// not UTF-8 count as text: they are GB18030 or Windows-1252 to decodeText.
func isBinary(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return false
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	bad := 0
	for _, c := range head {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != 0x1b {
			bad++
		}
	}
	return bad*10 > len(head)
}
