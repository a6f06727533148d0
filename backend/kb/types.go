package kb

// KB is one knowledge base. Embedding is empty for a keyword-only KB; Dims is learnt from
// the first vectors its model returns.
type KB struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	ChunkSize     int    `json:"chunkSize"`
	ChunkOverlap  int    `json:"chunkOverlap"`
	EmbedProvider string `json:"embedProvider,omitempty"`
	EmbedModel    string `json:"embedModel,omitempty"`
	Dims          int    `json:"dims,omitempty"`
	// NextEmbedProvider and NextEmbedModel are the model a background re-embed moves the
	// KB to; searches use Embed* until every chunk has a vector from it.
	NextEmbedProvider string `json:"nextEmbedProvider,omitempty"`
	NextEmbedModel    string `json:"nextEmbedModel,omitempty"`
	NextDims          int    `json:"nextDims,omitempty"`
	// RerankProvider and RerankModel, when set, reorder hybrid results through the
	// provider's /rerank endpoint.
	RerankProvider string `json:"rerankProvider,omitempty"`
	RerankModel    string `json:"rerankModel,omitempty"`
	CreatedAt      int64  `json:"createdAt"`
	UpdatedAt      int64  `json:"updatedAt"`
	// Reembed is how far a re-embed is (set by the service, not stored).
	Reembed *ReembedProgress `json:"reembed,omitempty"`
}

// Reembedding says whether a move to another embedding model is under way.
func (k KB) Reembedding() bool { return k.NextEmbedModel != "" }

// ReembedProgress is a re-embed's progress: chunks with a vector from the new model out of
// all; ErrorCode (an apperr code) when the last batch failed (it is tried again).
type ReembedProgress struct {
	KBID         string `json:"kbId"`
	Model        string `json:"model"`
	Done         int    `json:"done"`
	Total        int    `json:"total"`
	Finished     bool   `json:"finished,omitempty"`
	ErrorCode    string `json:"errorCode,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
}

// Folder is a folder added to a KB; with Sync on, its added, changed and removed files
// are picked up while Cairn runs.
type Folder struct {
	ID        string   `json:"id"`
	KBID      string   `json:"kbId"`
	Path      string   `json:"path"`
	Ignore    []string `json:"ignore"`
	Sync      bool     `json:"sync"`
	SyncedAt  int64    `json:"syncedAt,omitempty"`
	CreatedAt int64    `json:"createdAt"`
}

// SessionKBs is the payload of kb:attached: the KBs a session searches by default.
type SessionKBs struct {
	SessionID string   `json:"sessionId"`
	KBs       []string `json:"kbs"`
}

// HasEmbedding says whether the KB's chunks get vectors.
func (k KB) HasEmbedding() bool { return k.EmbedModel != "" }

// State is where a file is in ingest.
type State string

// The ingest states of a file. Parsing and embedding are the worker's; a restart puts a
// file left in parsing back in the queue and resumes one in embedding where it stopped.
const (
	StateQueued    State = "queued"
	StateParsing   State = "parsing"
	StateEmbedding State = "embedding"
	StateDone      State = "done"
	StateError     State = "error"
	StatePaused    State = "paused"
)

// File is one document of a KB: a copy in the data directory named by its sha256.
type File struct {
	ID     string `json:"id"`
	KBID   string `json:"kbId"`
	Name   string `json:"name"`
	Source string `json:"source,omitempty"` // where it was added from
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	State  State  `json:"state"`
	// ErrorCode is an apperr code (an i18n key under errors.) when State is error.
	ErrorCode    string `json:"errorCode,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	Chunks       int    `json:"chunks"`
	Embedded     int    `json:"embedded"`
	CreatedAt    int64  `json:"createdAt"`
	UpdatedAt    int64  `json:"updatedAt"`
}

// Chunk is a stored piece of a file with its position for citations.
type Chunk struct {
	ID        int64  `json:"id"`
	FileID    string `json:"fileId"`
	KBID      string `json:"kbId"`
	Index     int    `json:"index"`
	Text      string `json:"text"`
	Heading   string `json:"heading,omitempty"`
	PageStart int    `json:"pageStart,omitempty"`
	PageEnd   int    `json:"pageEnd,omitempty"`
	LineStart int    `json:"lineStart,omitempty"`
	LineEnd   int    `json:"lineEnd,omitempty"`
}

// Hit is a search result.
type Hit struct {
	KB        string  `json:"kb"`
	KBID      string  `json:"kbId"`
	FileID    string  `json:"fileId"`
	File      string  `json:"file"`
	ChunkID   int64   `json:"chunkId"`
	Index     int     `json:"index"`
	Heading   string  `json:"heading,omitempty"`
	PageStart int     `json:"pageStart,omitempty"`
	PageEnd   int     `json:"pageEnd,omitempty"`
	LineStart int     `json:"lineStart,omitempty"`
	LineEnd   int     `json:"lineEnd,omitempty"`
	Snippet   string  `json:"snippet"`
	Score     float64 `json:"score"`
	// Via says which retrievers found it: "keyword", "vector" or both.
	Via []string `json:"via"`
}

// Progress is the payload of a file's progress event on topic kb:<id>.
type Progress struct {
	KBID      string `json:"kbId"`
	FileID    string `json:"fileId"`
	Name      string `json:"name"`
	State     State  `json:"state"`
	Chunks    int    `json:"chunks"`
	Embedded  int    `json:"embedded"`
	ErrorCode string `json:"errorCode,omitempty"`
}

// Event types and topics.
const (
	TopicKBs         = "kb"
	TypeKBsChanged   = "kb:changed"
	TypeFileProgress = "kb:file"
	TypeReembed      = "kb:reembed"
	TypeAttached     = "kb:attached"
)

// Topic is the topic of one KB's file events.
func Topic(kbID string) string { return "kb:" + kbID }
