// Command fakeopenai serves an llmtest scenario over HTTP for tests that run in another
// process (browser end-to-end tests). It prints the base URL as its first stdout line and
// runs until interrupted.
//
//	fakeopenai [-addr 127.0.0.1:0] [-scenario auto] [-api-key KEY]
//
// With -scenario auto (the default) the model name picks the scenario: "fake-tools",
// "fake-401", "fake-slow", …; GET /v1/models lists them all.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	scenario := flag.String("scenario", "auto", "one of: "+strings.Join(llmtest.ScenarioNames(), ", "))
	apiKey := flag.String("api-key", "", "require this bearer key (401 otherwise)")
	flag.Parse()

	handler := llmtest.Auto
	if *scenario != "auto" {
		fn, ok := llmtest.Scenarios()[*scenario]
		if !ok {
			fmt.Fprintf(os.Stderr, "fakeopenai: unknown scenario %q (%s)\n", *scenario, strings.Join(llmtest.ScenarioNames(), ", "))
			os.Exit(2)
		}
		handler = fn
	}
	opts := []llmtest.Option{llmtest.WithHandler(handler), llmtest.WithModels(llmtest.AutoModels()...)}
	if *apiKey != "" {
		opts = append(opts, llmtest.WithAPIKey(*apiKey))
	}
	srv, err := llmtest.Listen(*addr, opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeopenai: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(srv.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	srv.Close()
}
