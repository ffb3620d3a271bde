package mcp

import (
	"encoding/json"
	"net/http"
	"net/textproto"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpbench/mcpbench/internal/jsonscan"
)

// The server's own words in an error: the text of a tool result marked
// isError, the message of a JSON-RPC error. They tell a missing file from
// a bad argument, so error examples keep them: one line of at most
// ServerTextRunes characters, with credentials taken out. Only failed
// requests come here; a successful answer never does.

// ServerTextRunes is how much of the server's text an error keeps.
const ServerTextRunes = 200

// serverTextScanBytes bounds how much of a long text is decoded: enough
// for ServerTextRunes characters and a credential that straddles the cut.
const serverTextScanBytes = 4096

// SensitiveHeaders carry credentials whatever the user says: their values
// never appear in what mcpbench writes.
var SensitiveHeaders = []string{"Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key"}

var (
	contentKeys = [][]byte{[]byte("content")}
	textKeys    = [][]byte{[]byte("text")}
)

// Patterns of credentials a server may repeat in its text: a URL's user
// info, an authorization scheme's credential, a key=value secret.
var (
	userinfoRE   = regexp.MustCompile(`(://)[^/\s@]+@`)
	authSchemeRE = regexp.MustCompile(`(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{4,}`)
	secretPairRE = regexp.MustCompile(`(?i)\b((?:api[_-]?key|access[_-]?token|auth[_-]?token|password|passwd|secret|client[_-]?secret)["']?\s*[:=]\s*["']?)[^\s"'&,;]{4,}`)
)

// SecretValues lists the credential values in h: those of
// SensitiveHeaders and of the extra header names, and the credential inside
// each (a bearer token without its scheme). Values under four characters
// are left out: hiding them would garble ordinary text.
func SecretValues(h http.Header, extra ...string) []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= 4 {
			out = append(out, v)
		}
	}
	for _, name := range append(slices.Clip(SensitiveHeaders), extra...) {
		for _, v := range h.Values(textproto.CanonicalMIMEHeaderKey(name)) {
			// The credential first: "Bearer ***" says more than "***".
			if _, cred, ok := strings.Cut(v, " "); ok {
				add(cred)
			}
			add(v)
		}
	}
	return out
}

// serverText makes the server's text fit for a report: credentials out,
// one line, at most ServerTextRunes characters.
func (c *Client) serverText(s string) string {
	for _, sec := range c.secrets {
		s = strings.ReplaceAll(s, sec, "***")
	}
	s = userinfoRE.ReplaceAllString(s, "${1}***@")
	s = authSchemeRE.ReplaceAllString(s, "${1}${2}***")
	s = secretPairRE.ReplaceAllString(s, "${1}***")
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= ServerTextRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == ServerTextRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// toolErrorText is the text of the first text item of a tools/call
// result's content ("" when there is none), decoded no further than
// serverTextScanBytes.
func toolErrorText(result []byte) string {
	var content [1][]byte
	if jsonscan.Members(result, contentKeys, content[:]) != nil {
		return ""
	}
	arr := content[0]
	i := jsonscan.SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return ""
	}
	for i = jsonscan.SkipSpace(arr, i+1); i < len(arr) && arr[i] == '{'; {
		end, err := jsonscan.SkipValue(arr, i, 1)
		if err != nil {
			return ""
		}
		var text [1][]byte
		if jsonscan.Members(arr[i:end], textKeys, text[:]) == nil && len(text[0]) > 0 && text[0][0] == '"' {
			return unquotePrefix(text[0], serverTextScanBytes)
		}
		if i = jsonscan.SkipSpace(arr, end); i >= len(arr) || arr[i] != ',' {
			break
		}
		i = jsonscan.SkipSpace(arr, i+1)
	}
	return ""
}

// unquotePrefix decodes the JSON string raw (quotes included), or its first
// limit bytes when it is longer, cut where no escape or character is split.
func unquotePrefix(raw []byte, limit int) string {
	if len(raw) > limit {
		i := 1
		for i < limit {
			switch {
			case raw[i] != '\\':
				i++
			case raw[i+1] == 'u':
				i += 6
			default:
				i += 2
			}
		}
		for i > 1 && !utf8.RuneStart(raw[i]) { // nor a character
			i--
		}
		raw = append(raw[:i:i], '"')
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
