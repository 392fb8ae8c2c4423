mod common;
use common::*;

#[test]
fn demo_tree_is_seen() {
    let Some(w) = world("smoke", options("smoke")) else {
        return;
    };
    let f = open_demo(&w);
    eprintln!("{f:?}");
    let snap = w.client.snapshot().unwrap();
    eprintln!("{}", serde_json::to_string_pretty(&snap).unwrap());
}
