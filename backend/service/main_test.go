package service

import (
	"testing"

	"github.com/cairn-app/cairn/backend/sandbox/confine"
)

func TestMain(m *testing.M) { confine.RunTests(m) }
