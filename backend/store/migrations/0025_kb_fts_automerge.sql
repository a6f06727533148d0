-- FTS5 merges a level's segments once 16 have piled up (the default is 4): a file's chunks
-- are written in one transaction, which makes one segment, so with 4 ingest spent a quarter
-- of its time merging. Measured at 100k chunks: ingest 17 % faster, FTS5 queries the same.
INSERT INTO kb_fts(kb_fts, rank) VALUES('automerge', 16);
