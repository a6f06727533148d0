// Package pdfium reads the text of PDFs that the pure-Go reader of docparse cannot (PDF 2.0
// headers, broken cross-reference tables, fonts it does not decode) with PDFium compiled
// to WebAssembly and run by wazero: no cgo, no shared library, and PDFium's memory bugs
// stay inside the sandbox (no file system is mounted into it).
package pdfium

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	gopdfium "github.com/klippa-app/go-pdfium"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Extractor starts PDFium on first use and keeps one instance; calls are serialised.
type Extractor struct {
	cacheDir string
	mu       sync.Mutex
	pool     gopdfium.Pool
	inst     gopdfium.Pdfium
	startErr error
}

// New returns an extractor. With cacheDir, PDFium is compiled to machine code once and
// the result kept there (the first start takes seconds, later ones a fraction of one);
// without, it runs in wazero's interpreter, which starts at once but reads pages slower.
func New(cacheDir string) *Extractor { return &Extractor{cacheDir: cacheDir} }

func (e *Extractor) start() error {
	if e.inst != nil || e.startErr != nil {
		return e.startErr
	}
	features := api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling
	rc := wazero.NewRuntimeConfigInterpreter().WithCoreFeatures(features)
	if e.cacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(e.cacheDir)
		if err != nil {
			e.startErr = fmt.Errorf("pdfium compilation cache: %w", err)
			return e.startErr
		}
		rc = wazero.NewRuntimeConfig().WithCoreFeatures(features).WithCompilationCache(cache)
	}
	pool, err := webassembly.Init(webassembly.Config{MinIdle: 1, MaxIdle: 1, MaxTotal: 1,
		FSConfig: wazero.NewFSConfig(), RuntimeConfig: rc, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		e.startErr = fmt.Errorf("pdfium start: %w", err)
		return e.startErr
	}
	inst, err := pool.GetInstance(30 * time.Second)
	if err != nil {
		pool.Close()
		e.startErr = fmt.Errorf("pdfium instance: %w", err)
		return e.startErr
	}
	e.pool, e.inst = pool, inst
	return nil
}

// Extract returns the text of each page; it has the shape of docparse.PDFExtractor. A
// password-protected file is doc_encrypted, one PDFium cannot open doc_corrupt.
func (e *Extractor) Extract(ctx context.Context, r io.ReaderAt, size int64) ([]string, error) {
	data := make([]byte, size)
	if _, err := r.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.start(); err != nil {
		return nil, err
	}
	doc, err := e.inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		if errors.Is(err, pdferrors.ErrPassword) || strings.Contains(err.Error(), "password") {
			return nil, apperr.New(apperr.DocEncrypted, "the PDF is password-protected")
		}
		return nil, apperr.Wrap(err, apperr.DocCorrupt, "PDFium cannot open the file")
	}
	defer e.inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	count, err := e.inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.DocCorrupt, "PDFium cannot count the pages")
	}
	pages := make([]string, 0, count.PageCount)
	for i := 0; i < count.PageCount; i++ {
		if err := ctx.Err(); err != nil {
			return nil, apperr.Wrap(err, apperr.Canceled, "document parsing stopped")
		}
		txt, err := e.inst.GetPageText(&requests.GetPageText{Page: requests.Page{
			ByIndex: &requests.PageByIndex{Document: doc.Document, Index: i}}})
		if err != nil {
			return nil, apperr.Wrap(err, apperr.DocCorrupt, "PDFium cannot read page %d", i+1)
		}
		pages = append(pages, paragraphs(txt.Text))
	}
	return pages, nil
}

// paragraphs turns PDFium's CRLF-separated lines into docparse's form: one line per
// paragraph would lose nothing, but prose lines are rejoined so that a chunk reads well.
func paragraphs(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\n", "\n\n")
}

// Close stops PDFium; the extractor starts it again if used after.
func (e *Extractor) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var err error
	if e.inst != nil {
		err = errors.Join(e.inst.Close(), e.pool.Close())
	}
	e.inst, e.pool, e.startErr = nil, nil, nil
	return err
}
