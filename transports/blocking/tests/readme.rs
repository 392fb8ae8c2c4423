//! The root README's "Use it from Rust" section is `examples/quickstart.rs`, verbatim:
//! the copy a reader sees is the program CI runs against a real Chromium.

#[test]
fn readme_shows_the_quickstart_example_verbatim() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{dir}/../../README.md")).unwrap();
    let example = std::fs::read_to_string(format!("{dir}/examples/quickstart.rs")).unwrap();
    // `ignore` for the core's README doc test, which lacks this crate; CI runs the file.
    let begin = "<!-- BEGIN transports/blocking/examples/quickstart.rs -->\n```rust,ignore\n";
    let end = "```\n<!-- END transports/blocking/examples/quickstart.rs -->";
    let start = readme.find(begin).expect("the README's BEGIN marker") + begin.len();
    let stop = readme[start..].find(end).expect("the README's END marker") + start;
    assert_eq!(
        &readme[start..stop],
        example,
        "README.md's quickstart differs from transports/blocking/examples/quickstart.rs: copy the file into the README"
    );
}
