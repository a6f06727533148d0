package docparse

import (
	"fmt"
	"io"
	"strings"

	"github.com/xuri/excelize/v2"
)

// xlsxRowsPerBlock groups rows into table blocks; the first row of a sheet is taken as its
// header and repeated at the top of each block.
const xlsxRowsPerBlock = 40

// xlsx reads every sheet: a heading with the sheet's name, then table blocks of rows. Page
// is the sheet's number and Line the row's.
func (p *parser) xlsx() (*Document, error) {
	if _, err := p.openArchive(); err != nil {
		return nil, err // the same caps as every zip, before excelize inflates anything
	}
	f, err := excelize.OpenReader(io.NewSectionReader(p.r, 0, p.size), excelize.Options{
		UnzipSizeLimit:    p.opts.MaxUnpacked,
		UnzipXMLSizeLimit: min(p.opts.MaxUnpacked, 64<<20),
	})
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "password") || strings.Contains(err.Error(), "encrypt") {
			return nil, errEncrypted(p.name)
		}
		return nil, errCorrupt(p.name, err)
	}
	defer f.Close()
	b := &builder{max: p.opts.MaxText}
	for i, sheet := range f.GetSheetList() {
		b.pageBreak(i + 1)
		if err := p.sheet(f, sheet, b); err != nil {
			return nil, err
		}
		p.progress(i+1, len(f.GetSheetList()))
	}
	title := ""
	if props, err := f.GetDocProps(); err == nil {
		title = props.Title
	}
	return &Document{Blocks: b.blocks, Title: title, Pages: len(f.GetSheetList())}, nil
}

func (p *parser) sheet(f *excelize.File, sheet string, b *builder) error {
	if err := b.add(KindHeading, sheet, 1, 0, 0); err != nil {
		return err
	}
	rows, err := f.Rows(sheet)
	if err != nil {
		return errCorrupt(p.name, err)
	}
	defer rows.Close()
	var header string
	var group []string
	first, n := 0, 0
	emit := func(last int) error {
		if len(group) == 0 {
			return nil
		}
		err := b.add(KindTable, header+"\n"+strings.Join(group, "\n"), 0, first, last)
		group = nil
		return err
	}
	for rows.Next() {
		n++
		if err := p.ctx.Err(); err != nil {
			return canceled(err)
		}
		cols, err := rows.Columns()
		if err != nil {
			return errCorrupt(p.name, err)
		}
		row := strings.TrimRight(strings.Join(cols, " | "), " |")
		switch {
		case row == "":
			continue
		case header == "":
			header = row
			first = n + 1
			continue
		}
		if len(group) == 0 {
			first = n
		}
		group = append(group, row)
		if len(group) == xlsxRowsPerBlock {
			if err := emit(n); err != nil {
				return err
			}
		}
	}
	if header != "" && len(group) == 0 && (len(b.blocks) == 0 || b.blocks[len(b.blocks)-1].Kind == KindHeading) {
		return b.add(KindTable, header, 0, first-1, first-1)
	}
	if err := rows.Error(); err != nil {
		return errCorrupt(p.name, fmt.Errorf("sheet %s: %w", sheet, err))
	}
	return emit(n)
}
