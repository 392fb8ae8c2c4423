use cdp_supervisor::{
    replay::{Replayer, Trace},
    Config, Supervisor,
};
fn main() {
    let name = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(name).unwrap();
    let trace = Trace::parse(&text).unwrap();
    let mut sup = Supervisor::new(Config::default());
    let mut r = Replayer::new(&trace);
    while r.step(&mut sup) {
        while let Some(e) = sup.poll_event() {
            if let cdp_supervisor::Event::Warning { message } = e {
                eprintln!("WARN {message}");
            }
        }
    }
    let s = sup.snapshot();
    eprintln!("{:?}", sup.table_sizes());
    eprintln!(
        "children {} truncated {} top {:?}",
        s.frame_tree.children.len(),
        s.frame_tree.truncated,
        s.frame_tree.top
    );
    for c in &s.frame_tree.children {
        eprintln!(
            "  {} {} oopif={} {}",
            c.frame_id,
            c.parent_frame_id.as_deref().unwrap_or("-"),
            c.is_oopif,
            c.url
        );
    }
    eprintln!("{:?}", s.console_errors.last());
}
