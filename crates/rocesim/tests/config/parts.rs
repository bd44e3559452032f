//! Unit-level checks of the config layer's public parts: the checker, value types, error
//! display and collapsing, `--set` overrides, suggestions and the schema/doc generation.

mod check {
    use rocesim::config::check::*;
    use toml::Value;

    #[test]
    fn duplicates_are_reported_once() {
        let mut c = Ctx::new("x.toml");
        c.err("a", "m");
        c.err("a", "m");
        assert_eq!(c.count(), 1);
    }

    #[test]
    fn choices_suggest() {
        let mut c = Ctx::new("x.toml");
        assert_eq!(
            c.choice(&Value::String("parket".into()), "f", &["csv", "parquet"]),
            None
        );
        assert!(c.errors[0].message.ends_with("did you mean `parquet`?"));
        let r = c.supported(&Value::String("irn".into()), "t", &["gb0", "gbn"], &["irn"]);
        assert_eq!(r, None);
        assert!(c.errors[1].message.contains("not supported yet"));
    }
}

mod error {
    use rocesim::config::error::*;

    #[test]
    fn display_one_per_line() {
        let e = ConfigErrors(vec![
            ConfigError {
                file: "parking-lot.toml".into(),
                key: "switch.lossless.xon".into(),
                message: "XON (200KB) is above XOFF (180KB)".into(),
            },
            ConfigError {
                file: "p.toml".into(),
                key: String::new(),
                message: "bad".into(),
            },
        ]);
        assert_eq!(
            e.to_string(),
            "parking-lot.toml: switch.lossless.xon: XON (200KB) is above XOFF (180KB)\np.toml: bad"
        );
        let _: &dyn std::error::Error = &e;
    }

    #[test]
    fn repeated_errors_collapse() {
        let mut lines: Vec<String> = (0..2000)
            .map(|i| {
                format!(
                    "switch.buffer_size: switch `edge{i}`: headroom {} B exceeds",
                    100 + i
                )
            })
            .collect();
        lines.insert(1, "sim.duration: bad".to_string());
        for i in 0..5 {
            lines.push(format!("flow[{i}].src: unknown host `Q{i}`"));
        }
        let c = collapse(&lines);
        assert_eq!(c.len(), 7, "{c:?}");
        assert_eq!(
            c[0],
            "switch.buffer_size: switch `edge0`: headroom 100 B exceeds (and 1999 more like it: \
             `edge1`, `edge2`, `edge3`, ...)"
        );
        assert_eq!(c[1], "sim.duration: bad");
        assert_eq!(c[2], "flow[0].src: unknown host `Q0`");
        let few = vec!["a `x`: 1".to_string(), "a `y`: 2".to_string()];
        assert_eq!(collapse(&few), few);
    }
}

mod overrides {
    use rocesim::config::overrides::*;
    use toml::{Table, Value};

    fn doc(s: &str) -> Table {
        s.parse().unwrap()
    }

    #[test]
    fn values_are_toml_or_strings() {
        assert_eq!(parse_value("2048"), Value::Integer(2048));
        assert_eq!(parse_value("dcqcn"), Value::String("dcqcn".into()));
        assert_eq!(parse_value("20ms"), Value::String("20ms".into()));
        assert_eq!(parse_value("30KB"), Value::String("30KB".into()));
        assert_eq!(parse_value("inf"), Value::String("inf".into()));
        assert_eq!(parse_value("0.5"), Value::Float(0.5));
        assert_eq!(parse_value("\"x\""), Value::String("x".into()));
        assert!(matches!(parse_value("[3, 4]"), Value::Array(_)));
    }

    #[test]
    fn sets_nested_keys_creating_tables() {
        let mut t = doc("[sim]\nduration = \"1ms\"\n");
        apply(&mut t, "sim.duration=20ms").unwrap();
        apply(&mut t, "switch.lossless.headroom=30KB").unwrap();
        apply(&mut t, "nic.host.R.mtu=2048").unwrap();
        assert_eq!(t["sim"]["duration"].as_str(), Some("20ms"));
        assert_eq!(t["switch"]["lossless"]["headroom"].as_str(), Some("30KB"));
        assert_eq!(t["nic"]["host"]["R"]["mtu"].as_integer(), Some(2048));
    }

    #[test]
    fn sets_array_elements() {
        let mut t = doc("[[flow]]\nsrc = \"A\"\n[[flow]]\nsrc = \"B\"\n");
        apply(&mut t, "flow[1].size=1MB").unwrap();
        apply(&mut t, "flow.0.size=inf").unwrap();
        assert_eq!(t["flow"][1]["size"].as_str(), Some("1MB"));
        assert_eq!(t["flow"][0]["size"].as_str(), Some("inf"));
        assert!(apply(&mut t, "flow[5].size=1").is_err());
    }

    #[test]
    fn malformed_overrides_are_errors() {
        let mut t = doc("[sim]\nduration = \"1ms\"\n");
        assert!(apply(&mut t, "sim.duration").is_err());
        assert!(apply(&mut t, "=3").is_err());
        assert!(apply(&mut t, "sim.duration.x=3").is_err());
        assert!(apply(&mut t, "a..b=3").is_err());
        assert!(apply(&mut t, "a[x]=3").is_err());
    }
}

mod schema {
    use rocesim::config::schema::*;

    const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenario.md");

    /// Fails when a key's declaration changed and docs/scenario.md was not regenerated
    /// (`rocesim schema --update-doc docs/scenario.md`, or run this test with
    /// `ROCESIM_BLESS_DOCS=1`).
    #[test]
    fn doc_key_tables_are_current() {
        let doc = std::fs::read_to_string(DOC).unwrap();
        let new = update_doc(&doc).unwrap();
        if std::env::var_os("ROCESIM_BLESS_DOCS").is_some() && doc != new {
            std::fs::write(DOC, &new).unwrap();
            return;
        }
        assert!(
            doc == new,
            "docs/scenario.md has stale key tables: run `rocesim schema --update-doc docs/scenario.md`"
        );
        for (name, _) in doc_tables() {
            assert!(
                doc.contains(&format!("<!-- keys:{name} -->")),
                "no table {name} in the docs"
            );
        }
    }

    #[test]
    fn every_key_says_its_default() {
        for (name, keys) in doc_tables() {
            for k in keys {
                let (meaning, default) = split_doc(k.doc);
                assert!(
                    default != "—" && !meaning.is_empty(),
                    "{name}.{}: {:?}",
                    k.name,
                    k.doc
                );
            }
        }
        assert_eq!(
            split_doc(" Drop it.\n Default: `\"5m\"`.\n"),
            ("Drop it.".to_string(), "`\"5m\"`".to_string())
        );
    }

    #[test]
    fn schema_has_every_section_and_rejects_unknown_keys() {
        let s = json_schema();
        let props = s["properties"].as_object().unwrap();
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        let want = [
            "fault", "flow", "nic", "output", "sim", "switch", "topology", "workload",
        ];
        assert_eq!(names, want);
        assert_eq!(s["additionalProperties"], false);
        let headroom =
            &s["properties"]["switch"]["properties"]["lossless"]["properties"]["headroom"];
        assert!(
            headroom["description"].as_str().unwrap().contains("2.0"),
            "{headroom}"
        );
        assert_eq!(s["properties"]["nic"]["properties"]["mtu"]["maximum"], 9000);
        let kinds = s["properties"]["workload"]["items"]["anyOf"]
            .as_array()
            .unwrap();
        assert_eq!(kinds.len(), 7);
        assert!(update_doc("<!-- keys:nope -->\n<!-- /keys -->").is_err());
    }
}

mod suggest {
    use rocesim::config::suggest::*;

    #[test]
    fn distances() {
        assert_eq!(distance("links", "linkz"), 1);
        assert_eq!(distance("links", "lniks"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("MTU", "mtu"), 0);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn suggests_close_names_only() {
        let keys = ["hosts", "switches", "links", "link", "kind"];
        assert_eq!(suggest("linkz", keys).as_deref(), Some("links"));
        assert_eq!(suggest("lnk", keys).as_deref(), Some("link"));
        assert_eq!(suggest("swiches", keys).as_deref(), Some("switches"));
        assert_eq!(suggest("zzzzzz", keys), None);
        assert_eq!(suggest("Q", ["A", "B"]), None);
        assert_eq!(suggest("Aa", ["A", "B"]).as_deref(), Some("A"));
        assert_eq!(hint("hots", keys), "; did you mean `hosts`?");
        assert_eq!(hint("qqqqq", keys), "");
    }
}

mod leaf {
    use rocesim::config::check::Ctx;
    use rocesim::config::declare::Leaf;
    use rocesim::config::leaf::*;
    use rocesim::units::Bytes;
    use toml::Value;

    #[test]
    fn type_errors_say_what_was_expected() {
        let mut c = Ctx::new("x.toml");
        assert_eq!(
            TimeV::read(&mut c, &Value::Integer(5), "sim.duration"),
            None
        );
        assert_eq!(
            c.errors[0].message,
            "expected a time like \"1us\", found integer 5"
        );
        assert_eq!(Size::read(&mut c, &Value::Integer(-3), "a"), None);
        assert_eq!(Int::<0, 10>::read(&mut c, &Value::Float(2.5), "b"), None);
        assert!(
            c.errors[2].message.contains("found float 2.5"),
            "{}",
            c.errors[2].message
        );
        assert_eq!(Dscp::read(&mut c, &Value::Integer(64), "d"), None);
        assert_eq!(Tc::read(&mut c, &Value::Integer(8), "t"), None);
        assert_eq!(Prob::read(&mut c, &Value::Float(1.5), "p"), None);
        assert_eq!(c.errors.len(), 6);
        let tcs = Value::Array(vec![Value::Integer(3), Value::Integer(4)]);
        assert_eq!(TcList::read(&mut c, &tcs, "q"), Some(0b11000));
        assert_eq!(
            Size::read(&mut c, &Value::String("2KiB".into()), "s"),
            Some(Bytes(2048))
        );
        assert_eq!(
            Length::read(&mut c, &Value::String("2km".into()), "l"),
            Some(2000.0)
        );
        assert_eq!(c.errors.len(), 6);
    }
}
