-- Int8 codes of the chunk vectors, what the in-memory index of a KB is loaded from: the
-- float32 scale (little endian) then one signed byte per dimension of the normalized
-- vector. The float32 vector stays the truth (search rescores with it). Vectors stored
-- before this migration get their codes the first time their KB's index is loaded.
ALTER TABLE kb_chunks ADD COLUMN code BLOB;
