//! report.html in a real browser: every shipped scenario, run for a short time, has its report
//! opened in headless Chromium. The test fails on any console message (the reports have no
//! scripts, so a message is an error, e.g. an SVG attribute the browser cannot parse) and
//! checks from the rendered page that every chart drew data (non-empty marks).
//!
//! Chromium is `$ROCESIM_CHROMIUM` or `chromium` / `chromium-browser` / `google-chrome` on the
//! PATH (.ci/run installs Debian's `chromium`). Without it the test fails, unless
//! `ROCESIM_SKIP_BROWSER_TEST=1` says to skip it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{repo, rocesim};

/// Every shipped scenario runs this long, or until 100 us after its last fault event (a fault
/// after the end is an error), with its warm-up set to 50 us.
const SHORT_US: u64 = 300;

/// `sim.duration=...` for a short run of the scenario at `path`.
fn short_duration(path: &Path) -> String {
    let sc = rocesim::config::load(path, &[]).unwrap_or_else(|e| panic!("{e}"));
    let last = (sc.faults.iter())
        .map(|f| f.until.unwrap_or(f.at).max(f.at).ns() / 1000)
        .max()
        .map_or(0, |us| us + 100);
    format!("sim.duration={}us", last.max(SHORT_US))
}

/// The page the browser opens: one iframe per report and a script that inspects each
/// rendered report and writes its findings as JSON into `#verdict`.
const WRAPPER_SCRIPT: &str = r#"<script>
window.addEventListener("load", () => {
  const out = [];
  for (const f of document.querySelectorAll("iframe")) {
    const doc = f.contentDocument;
    if (!doc || !doc.body) { out.push({report: f.dataset.name, error: "not loaded"}); continue; }
    const charts = [...doc.querySelectorAll("svg.chart")].map(svg => {
      const drawn = [...svg.querySelectorAll("path, circle, rect")].filter(e => {
        if (e.tagName === "rect" && !e.querySelector("title")) return false;
        const b = e.getBBox();
        return b.width > 0 || b.height > 0;
      }).length;
      const title = svg.querySelector("title");
      return {title: title ? title.textContent : "", points: Number(svg.dataset.points || 0), drawn};
    });
    out.push({report: f.dataset.name, charts});
  }
  document.getElementById("verdict").textContent = JSON.stringify(out);
});
</script>"#;

fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ROCESIM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser", "google-chrome"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

/// Runs every shipped scenario briefly into `dir/<stem>/`; returns the stems that wrote a
/// report.
fn run_shipped(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("toml"))
        .collect();
    files.sort();
    for p in files {
        let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
        let out = dir.join(&stem);
        let rel = format!("scenarios/{stem}.toml");
        let duration = short_duration(&p);
        let o = rocesim(&[
            "run",
            &rel,
            "--quiet",
            "--out",
            out.to_str().unwrap(),
            "--set",
            &duration,
            "--set",
            "sim.warmup=50us",
        ]);
        assert!(
            o.status.success(),
            "{rel} ({duration}): {}",
            String::from_utf8_lossy(&o.stderr)
        );
        if out.join("report.html").exists() {
            names.push(stem);
        }
    }
    names
}

/// Opens `page` in headless Chromium; returns (dumped DOM, console messages).
fn open_headless(chromium: &Path, page: &Path, profile: &Path) -> (String, Vec<String>) {
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--allow-file-access-from-files",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let (mut so, mut se) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = so.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let console = (err.join().unwrap().lines())
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (out.join().unwrap(), console)
}

#[test]
fn shipped_reports_render_in_headless_chromium() {
    let Some(chromium) = find_chromium() else {
        if std::env::var("ROCESIM_SKIP_BROWSER_TEST").as_deref() == Ok("1") {
            eprintln!("skipped: ROCESIM_SKIP_BROWSER_TEST=1 and no Chromium found");
            return;
        }
        panic!(
            "headless Chromium not found: install it (apt-get install chromium), point \
             ROCESIM_CHROMIUM at it, or set ROCESIM_SKIP_BROWSER_TEST=1 to skip this test"
        );
    };
    let dir = tempfile::tempdir().unwrap();
    let names = run_shipped(dir.path());
    assert!(names.len() >= 30, "reports written: {names:?}");
    let mut page =
        String::from("<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\n");
    for n in &names {
        page.push_str(&format!(
            "<iframe data-name=\"{n}\" src=\"{n}/report.html\"></iframe>\n"
        ));
    }
    page.push_str("<pre id=\"verdict\">pending</pre>\n");
    page.push_str(WRAPPER_SCRIPT);
    page.push_str("</body></html>\n");
    let index = dir.path().join("index.html");
    std::fs::write(&index, page).unwrap();
    let (dom, console) = open_headless(&chromium, &index, &dir.path().join("profile"));
    assert!(
        console.is_empty(),
        "console messages:\n{}",
        console.join("\n")
    );
    let start = dom
        .find("<pre id=\"verdict\">")
        .expect("verdict in the DOM")
        + 18;
    let json = &dom[start..start + dom[start..].find("</pre>").unwrap()];
    let verdict: serde_json::Value =
        serde_json::from_str(&json.replace("&quot;", "\"").replace("&amp;", "&"))
            .unwrap_or_else(|e| panic!("verdict {json}: {e}"));
    let reports = verdict.as_array().expect("one entry per report");
    assert_eq!(reports.len(), names.len());
    let mut charts = 0;
    let mut empty = Vec::new();
    for r in reports {
        let name = r["report"].as_str().unwrap();
        assert!(r.get("error").is_none(), "{name}: {}", r["error"]);
        for c in r["charts"].as_array().unwrap() {
            charts += 1;
            if c["points"].as_u64().unwrap() == 0 || c["drawn"].as_u64().unwrap() == 0 {
                empty.push(format!("{name}: {c}"));
            }
        }
    }
    assert!(
        empty.is_empty(),
        "charts without data:\n{}",
        empty.join("\n")
    );
    assert!(
        charts >= 2 * names.len(),
        "{charts} charts in {} reports",
        names.len()
    );
}
