package kb

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
)

// Wire names of the tools.
var (
	SearchToolName     = tools.BuiltinName(Name, "search")
	ListFilesToolName  = tools.BuiltinName(Name, "list_files")
	FileMetaToolName   = tools.BuiltinName(Name, "file_meta")
	ReadChunksToolName = tools.BuiltinName(Name, "read_chunks")
)

// MaxReadChunks bounds one kb_read_chunks call.
const MaxReadChunks = 20

// SearchArgs are kb_search's arguments.
type SearchArgs struct {
	Query string   `json:"query" jsonschema:"what to look for: keywords or a question, in any language"`
	TopK  int      `json:"topK,omitempty" jsonschema:"how many passages to return (default 8, at most 50)"`
	KBs   []string `json:"kbs,omitempty" jsonschema:"names of the knowledge bases to search; when empty, those attached to this conversation, or all when none is"`
}

// ListFilesArgs are kb_list_files' arguments.
type ListFilesArgs struct {
	KB string `json:"kb,omitempty" jsonschema:"name of a knowledge base; when empty, those attached to this conversation, or all when none is"`
}

// FileArgs are kb_file_meta's arguments.
type FileArgs struct {
	FileID string `json:"fileId" jsonschema:"the file's id, as kb_search or kb_list_files give it"`
}

// ReadChunksArgs are kb_read_chunks' arguments.
type ReadChunksArgs struct {
	FileID string `json:"fileId" jsonschema:"the file's id, as kb_search or kb_list_files give it"`
	From   int    `json:"from,omitempty" jsonschema:"first chunk index (0-based)"`
	To     int    `json:"to,omitempty" jsonschema:"last chunk index, inclusive (default from; at most 20 chunks per call)"`
}

func display(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// position is where a chunk is in its file, for a citation.
func position(c Chunk) string {
	var p []string
	if c.PageStart > 0 {
		p = append(p, pages(c.PageStart, c.PageEnd))
	}
	if c.LineStart > 0 {
		p = append(p, fmt.Sprintf("lines %d-%d", c.LineStart, max(c.LineStart, c.LineEnd)))
	}
	if c.Heading != "" {
		p = append(p, "section "+c.Heading)
	}
	return strings.Join(p, ", ")
}

func pages(a, b int) string {
	if b <= a {
		return fmt.Sprintf("page %d", a)
	}
	return fmt.Sprintf("pages %d-%d", a, b)
}

// Tools are the four kb tools on s; their instruction names the catalog's KBs, those the
// session attached when it did.
func (s *Service) Tools(c Catalog) []tools.Entry {
	all := c.Instruction(nil)
	common := func(e tools.Entry) tools.Entry {
		e.Instruction = all
		e.Instructions = func(ctx context.Context, scope tools.Scope) string { return s.sessionInstruction(ctx, c, scope) }
		return e
	}
	return []tools.Entry{
		common(s.searchTool()), common(s.listFilesTool()), common(s.fileMetaTool()), common(s.readChunksTool()),
	}
}

func (s *Service) searchTool() tools.Entry {
	return tools.Typed(tools.TypedTool[SearchArgs]{
		Name: SearchToolName, Namespace: Name,
		Description: "Search the user's knowledge bases by keywords and meaning. Returns passages with their file, " +
			"file id, chunk index and position (page, lines, section) for citations.",
		SearchHint: "knowledge base documents files notes rag retrieve",
		ReadOnly:   true, ConcurrencySafe: true, Cancellable: true, Timeout: time.Minute, ProgressKind: "kb",
		Validate: func(_ context.Context, a SearchArgs) error {
			if strings.TrimSpace(a.Query) == "" {
				return apperr.New(apperr.InvalidArgument, "query is empty")
			}
			if a.TopK < 0 || a.TopK > MaxTopK {
				return apperr.New(apperr.InvalidArgument, "topK must be between 1 and %d", MaxTopK)
			}
			return nil
		},
		Run: func(ctx context.Context, a SearchArgs, _ func(tools.Progress)) (tools.Result, error) {
			refs, attached := a.KBs, false
			if len(refs) == 0 {
				refs = s.attached(ctx)
				attached = len(refs) > 0
			}
			kbs, err := s.resolve(ctx, refs)
			if err != nil {
				return tools.Result{}, err
			}
			d := SearchDisplay{Query: a.Query, KBs: []string{}, Attached: attached, Hits: []Hit{}}
			for _, k := range kbs {
				d.KBs = append(d.KBs, k.Name)
			}
			if len(kbs) > 0 {
				ids := make([]string, len(kbs))
				for i, k := range kbs {
					ids[i] = k.ID
				}
				if d.Hits, err = s.Search(ctx, SearchRequest{Query: a.Query, TopK: a.TopK, KBs: ids}); err != nil {
					return tools.Result{}, err
				}
			}
			return tools.Result{Content: FormatHits(a.Query, d.Hits), Display: display(d)}, nil
		},
	})
}

// FormatHits is a search's results as the model reads them.
func FormatHits(q string, hits []Hit) string {
	if len(hits) == 0 {
		return fmt.Sprintf("No passages match %q.", q)
	}
	var b strings.Builder
	for i, h := range hits {
		c := Chunk{Heading: h.Heading, PageStart: h.PageStart, PageEnd: h.PageEnd, LineStart: h.LineStart, LineEnd: h.LineEnd}
		fmt.Fprintf(&b, "[%d] %s (kb %s, file id %s, chunk %d", i+1, h.File, h.KB, h.FileID, h.Index)
		if p := position(c); p != "" {
			b.WriteString(", " + p)
		}
		fmt.Fprintf(&b, ")\n%s\n\n", h.Snippet)
	}
	return strings.TrimSpace(b.String())
}

func (s *Service) listFilesTool() tools.Entry {
	return tools.Typed(tools.TypedTool[ListFilesArgs]{
		Name: ListFilesToolName, Namespace: Name,
		Description: "List the files of a knowledge base (or of the conversation's attached ones, or all): id, name, state and number of chunks.",
		ReadOnly:    true, ConcurrencySafe: true,
		Run: func(ctx context.Context, a ListFilesArgs, _ func(tools.Progress)) (tools.Result, error) {
			refs := s.attached(ctx)
			if a.KB != "" {
				refs = []string{a.KB}
			}
			kbs, err := s.resolve(ctx, refs)
			if err != nil {
				return tools.Result{}, err
			}
			var b strings.Builder
			all := map[string][]File{}
			for _, k := range kbs {
				files, err := s.st.Files(ctx, k.ID)
				if err != nil {
					return tools.Result{}, err
				}
				all[k.Name] = files
				fmt.Fprintf(&b, "Knowledge base %s: %d files\n", k.Name, len(files))
				for _, f := range files {
					fmt.Fprintf(&b, "- %s (id %s, %s, %d chunks)\n", f.Name, f.ID, f.State, f.Chunks)
				}
			}
			return tools.Result{Content: strings.TrimSpace(b.String()), Display: display(all)}, nil
		},
	})
}

func (s *Service) fileMetaTool() tools.Entry {
	return tools.Typed(tools.TypedTool[FileArgs]{
		Name: FileMetaToolName, Namespace: Name,
		Description: "Details of one knowledge base file: name, size, type, state, number of chunks, any error.",
		ReadOnly:    true, ConcurrencySafe: true,
		Run: func(ctx context.Context, a FileArgs, _ func(tools.Progress)) (tools.Result, error) {
			f, err := s.st.File(ctx, a.FileID)
			if err != nil {
				return tools.Result{}, err
			}
			k, err := s.st.KB(ctx, f.KBID)
			if err != nil {
				return tools.Result{}, err
			}
			text := fmt.Sprintf("File %s (id %s) in knowledge base %s: %d bytes, sha256 %s, state %s, %d chunks (indexes 0-%d), %d embedded.",
				f.Name, f.ID, k.Name, f.Size, f.SHA256, f.State, f.Chunks, max(0, f.Chunks-1), f.Embedded)
			if f.ErrorCode != "" {
				text += " Error: " + f.ErrorMessage
			}
			return tools.Result{Content: text, Display: display(f)}, nil
		},
	})
}

func (s *Service) readChunksTool() tools.Entry {
	return tools.Typed(tools.TypedTool[ReadChunksArgs]{
		Name: ReadChunksToolName, Namespace: Name,
		Description: fmt.Sprintf("Read chunks of a knowledge base file by index (from..to, inclusive, at most %d), "+
			"e.g. the passages around a search result.", MaxReadChunks),
		ReadOnly: true, ConcurrencySafe: true,
		Validate: func(_ context.Context, a ReadChunksArgs) error {
			if a.From < 0 || (a.To != 0 && a.To < a.From) {
				return apperr.New(apperr.InvalidArgument, "from must be 0 or more and to at least from")
			}
			return nil
		},
		Run: func(ctx context.Context, a ReadChunksArgs, _ func(tools.Progress)) (tools.Result, error) {
			to := max(a.To, a.From)
			to = min(to, a.From+MaxReadChunks-1)
			f, err := s.st.File(ctx, a.FileID)
			if err != nil {
				return tools.Result{}, err
			}
			cs, err := s.st.FileChunks(ctx, f.ID, a.From, to)
			if err != nil {
				return tools.Result{}, err
			}
			if len(cs) == 0 {
				return tools.Result{Content: fmt.Sprintf("%s has no chunks %d-%d (it has %d).", f.Name, a.From, to, f.Chunks)}, nil
			}
			var b strings.Builder
			for _, c := range cs {
				fmt.Fprintf(&b, "--- %s, chunk %d", f.Name, c.Index)
				if p := position(c); p != "" {
					b.WriteString(" (" + p + ")")
				}
				fmt.Fprintf(&b, " ---\n%s\n\n", c.Text)
			}
			return tools.Result{Content: strings.TrimSpace(b.String()), Display: display(cs)}, nil
		},
	})
}

// Catalog is what the toolset's instruction says of each KB: its name and some of its
// files, read once per change of KBs or files (a large KB's file list is long) and
// rendered per request for the KBs the session attached.
type Catalog struct{ kbs []catalogKB }

type catalogKB struct{ id, line string }

// Catalog reads every KB's line of the instruction; large KBs are summarised.
func (s *Service) Catalog(ctx context.Context) Catalog {
	kbs, err := s.st.KBs(ctx)
	if err != nil {
		s.log.Warn("kb: knowledge bases for the instruction", "err", err)
		return Catalog{}
	}
	const maxFiles = 10
	var c Catalog
	for _, k := range kbs {
		files, _ := s.st.Files(ctx, k.ID)
		var b strings.Builder
		fmt.Fprintf(&b, "\n- %q: %d files", oneLine(k.Name), len(files))
		for j, f := range files {
			if j == maxFiles {
				fmt.Fprintf(&b, ", and %d more", len(files)-maxFiles)
				break
			}
			sep := ", "
			if j == 0 {
				sep = ": "
			}
			fmt.Fprintf(&b, "%s%q", sep, oneLine(f.Name))
		}
		c.kbs = append(c.kbs, catalogKB{id: k.ID, line: b.String()})
	}
	return c
}

// Instruction names the KBs the session attached (by id), or every KB when attached is
// empty or names none there is: kb_search searches the attached ones, all without.
func (c Catalog) Instruction(attached []string) string {
	kbs := c.kbs
	if len(attached) > 0 {
		kbs = nil
		for _, k := range c.kbs {
			if slices.Contains(attached, k.id) {
				kbs = append(kbs, k)
			}
		}
	}
	var b strings.Builder
	if len(kbs) > 0 && len(attached) > 0 {
		b.WriteString("The knowledge bases attached to this conversation: search them with kb_search before answering from " +
			"memory about their contents, read around a passage with kb_read_chunks, and cite the file and position of " +
			"what you use. kb_search searches these unless you name other knowledge bases.")
	} else {
		kbs = c.kbs
		b.WriteString("The user's knowledge bases: search them with kb_search before answering from memory about their " +
			"contents, read around a passage with kb_read_chunks, and cite the file and position of what you use. " +
			"When the conversation has knowledge bases attached, kb_search searches those unless you name others.")
	}
	if len(kbs) == 0 {
		b.WriteString(" There are no knowledge bases yet.")
		return b.String()
	}
	const maxKBs = 20
	for i, k := range kbs {
		if i == maxKBs {
			fmt.Fprintf(&b, "\n- and %d more knowledge bases", len(kbs)-maxKBs)
			break
		}
		b.WriteString(k.line)
	}
	return b.String()
}

// Instruction is the toolset's text naming every KB.
func (s *Service) Instruction(ctx context.Context) string { return s.Catalog(ctx).Instruction(nil) }

// sessionInstruction is the toolset's text for one request: the KBs its session attached
// (looked up per request, so attaching needs no refresh), every KB when it attached none.
func (s *Service) sessionInstruction(ctx context.Context, c Catalog, scope tools.Scope) string {
	ids := scope.KBs
	if len(ids) == 0 && scope.SessionID != "" {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		var err error
		ids, err = s.st.SessionKBs(ctx, scope.SessionID)
		cancel()
		if err != nil {
			s.log.Warn("kb: attached knowledge bases for the instruction", "session", scope.SessionID, "err", err)
		}
	}
	return c.Instruction(ids)
}

func oneLine(s string) string {
	return shorten(strings.Join(strings.Fields(s), " "), 80)
}
