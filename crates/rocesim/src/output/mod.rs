//! Result writers: summary.json, CSV tables, report.html, the terminal table.
