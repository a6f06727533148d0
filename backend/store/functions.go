package store

import (
	"crypto/sha256"
	"database/sql/driver"
	"encoding/hex"
	"fmt"

	"modernc.org/sqlite"
)

// SQL functions the migrations need and SQLite lacks, registered for every connection
// the driver opens (hence at init, before any Open).
func init() {
	// sha256_hex(text) is the lower-case hex SHA-256 of its UTF-8 text. Migration 0014
	// matches the hash that ends an MCP tool's wire name (tools.MCPName) to its server
	// and tool, which no other column says.
	sqlite.MustRegisterDeterministicScalarFunction("sha256_hex", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		var b []byte
		switch v := args[0].(type) {
		case string:
			b = []byte(v)
		case []byte:
			b = v
		case nil:
			return nil, nil
		default:
			b = []byte(fmt.Sprint(v))
		}
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:]), nil
	})
}
