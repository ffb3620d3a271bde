package target

import "fmt"

// themes are the shapes the synthetic tools take, in the order tools are
// numbered: each pairs an input and output schema with a result that
// satisfies it.
func themes() []theme {
	return []theme{searchTheme(), ticketTheme(), metricsTheme(), weatherTheme()}
}

// searchTheme: a full-text search with nested filters and a list of scored results.
func searchTheme() theme {
	return theme{
		title:       "Search documents",
		description: "Full-text search over the document index. Returns the best matching documents with a relevance score, newest first when sort is 'recent'.",
		required:    []string{"query"},
		input: func() schema {
			return object(schema{
				"query": str(schema{"minLength": 1, "maxLength": 256, "description": "Search terms"}),
				"limit": with(integer(1, 50), schema{"default": 10}),
				"sort":  enum("relevance", "recent"),
				"filters": object(schema{
					"lang":  enum("en", "de", "fr", "ja"),
					"since": str(schema{"format": "date-time"}),
					"tags":  with(array(str(schema{"pattern": "^[a-z0-9-]{1,32}$"}), 0, 5), schema{"uniqueItems": true}),
				}),
			}, "query")
		},
		output: func() schema {
			return object(schema{
				"total": schema{"type": "integer", "minimum": 0},
				"results": array(object(schema{
					"id":    str(schema{"pattern": "^doc-[0-9]{6}$"}),
					"title": str(schema{"maxLength": 200}),
					"score": number(schema{"minimum": 0, "maximum": 1}),
					"url":   str(schema{"format": "uri"}),
				}, "id", "title", "score"), 0, 50),
			}, "total", "results")
		},
		result: func(i int) map[string]any {
			return map[string]any{"total": 2, "results": []any{
				map[string]any{"id": fmt.Sprintf("doc-%06d", 100000+i), "title": "Capacity planning for MCP servers", "score": 0.92, "url": "https://docs.example.com/capacity"},
				map[string]any{"id": fmt.Sprintf("doc-%06d", 200000+i), "title": "Reading latency histograms", "score": 0.61, "url": "https://docs.example.com/latency"},
			}}
		},
	}
}

// ticketTheme: a tracker write with an optional nested assignee.
func ticketTheme() theme {
	return theme{
		title:       "Create ticket",
		description: "Open a ticket in the tracker, optionally assigned to a person and team, with labels and a due date. Returns the ticket's id and status.",
		required:    []string{"title", "priority"},
		input: func() schema {
			return object(schema{
				"title":    str(schema{"minLength": 3, "maxLength": 120}),
				"priority": enum("low", "medium", "high", "urgent"),
				"assignee": object(schema{
					"email": str(schema{"format": "email"}),
					"team":  str(schema{"pattern": "^[a-z][a-z0-9-]{1,30}$"}),
				}, "email"),
				"labels": array(str(schema{"minLength": 1, "maxLength": 24}), 1, 8),
				"due":    str(schema{"format": "date"}),
			}, "title", "priority")
		},
		output: func() schema {
			return object(schema{
				"ticket_id":  str(schema{"pattern": "^TCK-[0-9]{5}$"}),
				"status":     enum("open", "triaged"),
				"created_at": str(schema{"format": "date-time"}),
				"assignee":   object(schema{"email": str(schema{"format": "email"})}),
			}, "ticket_id", "status", "created_at")
		},
		result: func(i int) map[string]any {
			return map[string]any{"ticket_id": fmt.Sprintf("TCK-%05d", 10000+i), "status": "open",
				"created_at": "2026-01-15T09:30:00Z", "assignee": map[string]any{"email": "oncall@example.com"}}
		},
	}
}

// metricsTheme: a time-series query with a grouped series and a summary.
func metricsTheme() theme {
	return theme{
		title:       "Query metrics",
		description: "Fetch a time series for one metric over a trailing window, optionally grouped, with a summary of the points. Values use the metric's unit.",
		required:    []string{"metric", "window_s"},
		input: func() schema {
			return object(schema{
				"metric":     enum("cpu", "memory", "latency_p99", "error_rate"),
				"window_s":   integer(10, 86400),
				"group_by":   with(array(enum("host", "region", "service"), 0, 3), schema{"uniqueItems": true}),
				"percentile": number(schema{"exclusiveMinimum": 0, "maximum": 100}),
			}, "metric", "window_s")
		},
		output: func() schema {
			return object(schema{
				"metric": str(nil),
				"unit":   enum("percent", "bytes", "ms", "ratio"),
				"points": array(object(schema{
					"t": str(schema{"format": "date-time"}),
					"v": number(nil),
				}, "t", "v"), 1, 60),
				"summary": object(schema{"min": number(nil), "max": number(nil), "mean": number(nil)}, "min", "max", "mean"),
			}, "metric", "unit", "points", "summary")
		},
		result: func(i int) map[string]any {
			return map[string]any{"metric": "cpu", "unit": "percent",
				"points": []any{
					map[string]any{"t": "2026-01-15T09:00:00Z", "v": 41.5},
					map[string]any{"t": "2026-01-15T09:01:00Z", "v": 47.0 + float64(i%10)},
				},
				"summary": map[string]any{"min": 41.5, "max": 47.0 + float64(i%10), "mean": 44.25 + float64(i%10)/2}}
		},
	}
}

// weatherTheme: a forecast for a coordinate with daily entries.
func weatherTheme() theme {
	return theme{
		title:       "Weather forecast",
		description: "Daily weather forecast for a coordinate, up to 14 days ahead, in metric or imperial units, with optional hourly detail and active alerts.",
		required:    []string{"location"},
		input: func() schema {
			return object(schema{
				"location": object(schema{
					"lat": number(schema{"minimum": -90, "maximum": 90}),
					"lon": number(schema{"minimum": -180, "maximum": 180}),
				}, "lat", "lon"),
				"units":   enum("metric", "imperial"),
				"days":    integer(1, 14),
				"include": with(array(enum("hourly", "alerts", "air_quality"), 0, 3), schema{"uniqueItems": true}),
			}, "location")
		},
		output: func() schema {
			return object(schema{
				"location": object(schema{"lat": number(nil), "lon": number(nil)}, "lat", "lon"),
				"forecast": array(object(schema{
					"date":       str(schema{"format": "date"}),
					"high":       number(nil),
					"low":        number(nil),
					"conditions": enum("clear", "cloudy", "rain", "snow", "storm"),
				}, "date", "high", "low", "conditions"), 1, 14),
				"alerts": array(str(nil), 0, 10),
			}, "location", "forecast")
		},
		result: func(i int) map[string]any {
			return map[string]any{"location": map[string]any{"lat": 48.14, "lon": 11.58},
				"forecast": []any{map[string]any{"date": "2026-01-16", "high": 4.0 + float64(i%5), "low": -2.0, "conditions": "cloudy"}},
				"alerts":   []any{}}
		},
	}
}
