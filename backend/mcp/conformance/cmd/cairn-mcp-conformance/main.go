// Command cairn-mcp-conformance is the client binary that the official MCP client
// conformance suite (npm @modelcontextprotocol/conformance, see ../../run.sh) drives. It
// plays one scenario through Cairn's own MCP client — backend/mcp.Manager over a real
// SQLite store, the path the app takes: Save a Streamable HTTP server, RefreshTools
// (connect, initialize, tools/list), CallTool — against the scenario's server.
//
// Usage (as the suite runs it):
//
//	MCP_CONFORMANCE_SCENARIO=<name> [MCP_CONFORMANCE_CONTEXT=<json>] cairn-mcp-conformance <server-url>
//
// The server URL is the last argument. Where the app has a seam and no built-in user
// interface yet, the harness plays the user: elicitation forms are accepted as
// pre-filled (the schema's defaults), and the OAuth authorization page is "visited"
// headlessly by reading the code from its redirect. Scenarios that need what Cairn does
// not implement (OAuth client credentials, cross-app access) fail with a message that
// says so. Exit status: 0 done, 1 the scenario failed, 2 usage.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	cairnmcp "github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// scenarioTimeout stays below the suite's 30 s per scenario, so a hang ends with a
// message of ours rather than a kill.
const scenarioTimeout = 25 * time.Second

// What the conformance auth scenarios expect a client to use.
const (
	redirectURL = "http://localhost:3000/callback"
	cimdURL     = "https://conformance-test.local/client-metadata.json"
)

// scenario is what one conformance scenario asks of the client.
type scenario struct {
	// elicit: the client answers elicitation requests (accepting the form as filled in).
	elicit bool
	// oauth: the client authorizes with the authorization code flow.
	oauth bool
	// tool is called (with args, {} when nil) after the tool list was read; "" lists
	// tools only.
	tool string
	args map[string]any
	// unsupported, when set, is why Cairn cannot play this scenario.
	unsupported string
}

// scenarios are the client scenarios of @modelcontextprotocol/conformance 0.1.16
// (`conformance list --client`) and what each asks of the client.
func scenarios() map[string]scenario {
	m := map[string]scenario{
		"initialize":                          {},
		"tools_call":                          {tool: "add_numbers", args: map[string]any{"a": 5, "b": 3}},
		"elicitation-sep1034-client-defaults": {elicit: true, tool: "test_client_elicitation_defaults"},
		"sse-retry":                           {tool: "test_reconnection"},

		"auth/client-credentials-jwt":         {unsupported: "Cairn does not implement the OAuth client_credentials grant (private_key_jwt); it authorizes remote servers with the authorization code flow"},
		"auth/client-credentials-basic":       {unsupported: "Cairn does not implement the OAuth client_credentials grant (client_secret_basic); it authorizes remote servers with the authorization code flow"},
		"auth/cross-app-access-complete-flow": {unsupported: "Cairn does not implement cross-app access (SEP-990: token exchange and JWT bearer grant)"},
	}
	// These authorize with the authorization code flow, then list tools and call test-tool.
	for _, name := range []string{
		"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
		"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
		"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
		"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
		"auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
		"auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch",
		"auth/offline-access-scope", "auth/offline-access-not-supported",
	} {
		m[name] = scenario{oauth: true, tool: "test-tool"}
	}
	return m
}

func main() {
	os.Exit(run())
}

func run() int {
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if len(os.Args) < 2 || name == "" {
		fmt.Fprintf(os.Stderr, "usage: MCP_CONFORMANCE_SCENARIO=<name> %s <server-url>\nscenarios:\n  %s\n",
			os.Args[0], strings.Join(names(), "\n  "))
		return 2
	}
	serverURL := os.Args[len(os.Args)-1]
	sc, ok := scenarios()[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown scenario %q; known:\n  %s\n", name, strings.Join(names(), "\n  "))
		return 2
	}
	if sc.unsupported != "" {
		fmt.Fprintf(os.Stderr, "scenario %s: not supported: %s\n", name, sc.unsupported)
		return 1
	}
	var cc conformanceContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &cc); err != nil {
			fmt.Fprintf(os.Stderr, "MCP_CONFORMANCE_CONTEXT: %v\n", err)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, scenarioTimeout)
	defer cancel()
	if err := play(ctx, sc, serverURL, cc); err != nil {
		fmt.Fprintf(os.Stderr, "scenario %s: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "scenario %s: done\n", name)
	return 0
}

func names() []string {
	all := scenarios()
	out := make([]string, 0, len(all))
	for n := range all {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// conformanceContext is MCP_CONFORMANCE_CONTEXT (pre-registration passes a client).
type conformanceContext struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// play runs one scenario through a fresh Manager in a temporary data directory.
func play(ctx context.Context, sc scenario, serverURL string, cc conformanceContext) (err error) {
	dir, err := os.MkdirTemp("", "cairn-mcp-conformance-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(ctx, dir)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer db.Close()

	cfg := cairnmcp.Config{DB: db, DataDir: dir, Options: cairnmcp.Options{LoginShell: "-"}}
	if sc.elicit {
		cfg.Elicit = acceptAsFilled
	}
	if sc.oauth {
		h, err := oauthHandler(cc)
		if err != nil {
			return err
		}
		cfg.OAuth = func(cairnmcp.Server) auth.OAuthHandler { return h }
	}
	m, err := cairnmcp.New(ctx, cfg)
	if err != nil {
		return fmt.Errorf("mcp manager: %w", err)
	}
	defer func() {
		if cerr := m.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()

	v, err := m.Save(ctx, cairnmcp.Server{Name: "conformance", Transport: cairnmcp.TransportHTTP, URL: serverURL, Enabled: true})
	if err != nil {
		return fmt.Errorf("save server: %w", err)
	}
	// RefreshTools is the only path that connects: initialize, then tools/list.
	list, err := m.RefreshTools(ctx, v.ID)
	if err != nil {
		return fmt.Errorf("connect and list tools: %w", err)
	}
	view, err := m.View(ctx, v.ID)
	if err == nil && view.Status.ServerInfo != nil {
		fmt.Fprintf(os.Stderr, "connected over %s to %s %s (protocol %s), %d tools\n", view.Status.Transport,
			view.Status.ServerInfo.Name, view.Status.ServerInfo.Version, view.Status.ServerInfo.ProtocolVersion, len(list))
	}
	if sc.tool == "" {
		return nil
	}
	if !slices.ContainsFunc(list, func(t cairnmcp.ToolInfo) bool { return t.Name == sc.tool }) {
		return fmt.Errorf("the server lists no tool %q", sc.tool)
	}
	args := json.RawMessage("{}") // MCP arguments are an object, never null
	if len(sc.args) > 0 {
		if args, err = json.Marshal(sc.args); err != nil {
			return err
		}
	}
	res, err := m.CallTool(ctx, v.ID, sc.tool, args, nil)
	if err != nil {
		return fmt.Errorf("call %s: %w", sc.tool, err)
	}
	if res.IsError {
		return fmt.Errorf("call %s: the tool reported an error: %s", sc.tool, res.Content)
	}
	fmt.Fprintf(os.Stderr, "%s: %s\n", sc.tool, res.Content)
	return nil
}

// acceptAsFilled is the user accepting an elicitation form as Cairn pre-fills it: every
// field left at the schema's default (go-sdk fills the defaults into the answer).
func acceptAsFilled(_ context.Context, e cairnmcp.Elicitation) (*mcp.ElicitResult, error) {
	fmt.Fprintf(os.Stderr, "elicitation from %s: %q: accepting the defaults\n", e.ServerID, e.Params.Message)
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
}

// oauthHandler is the authorization code flow (PKCE; client ID metadata document,
// pre-registration or dynamic registration) of go-sdk's auth package, which Cairn's
// Config.OAuth seam takes; the browser is replaced by fetchCode.
func oauthHandler(cc conformanceContext) (auth.OAuthHandler, error) {
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:                    redirectURL,
		AuthorizationCodeFetcher:       fetchCode,
		ClientIDMetadataDocumentConfig: &auth.ClientIDMetadataDocumentConfig{URL: cimdURL},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{ClientName: "Cairn", RedirectURIs: []string{redirectURL}},
		},
	}
	if cc.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{
			ClientID:         cc.ClientID,
			ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: cc.ClientSecret},
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("oauth handler: %w", err)
	}
	return h, nil
}

// fetchCode opens the authorization URL the way a browser would and reads the code,
// state and issuer from the redirect to the callback (the conformance authorization
// server approves at once).
func fetchCode(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authorization page: %w", err)
	}
	defer resp.Body.Close()
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, fmt.Errorf("authorization page answered %s without a redirect", resp.Status)
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("authorization redirect %q: %w", loc, err)
	}
	q := u.Query()
	if e := q.Get("error"); e != "" {
		return nil, errors.New("authorization refused: " + e + " " + q.Get("error_description"))
	}
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}
