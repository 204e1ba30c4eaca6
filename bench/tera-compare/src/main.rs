//! Renders the same 20-paper list page with Tera 1.20 and Tera 2.4 (`fast`) and
//! prints the time per page: `cargo run --release` in this directory.

use serde::Serialize;
use std::time::Instant;
#[derive(Serialize, Clone)]
struct Paper { title: String, url: String, year: u32, authors: Vec<(String,String)>, abstract_html: String }
const T: &str = r#"<!doctype html><html><head><title>{{ title }}</title></head><body><h1>{{ title }}</h1>
{% for p in papers %}<li><a href="{{ p.url }}">{{ p.title }}</a> ({{ p.year }}) {% for a in p.authors %}<a href="{{ a[1] }}">{{ a[0] }}</a>{% if not loop.last %}, {% endif %}{% endfor %}<p>{{ p.abstract_html | safe }}</p></li>{% endfor %}</body></html>"#;
fn main() {
    let papers: Vec<Paper> = (0..20).map(|i| Paper { title: format!("A <title> & number {i} about distributed training"), url: format!("/papers/p-{i}/"), year: 2024, authors: vec![("Chuan Wu".into(), "/authors/chuan-wu/".into()), ("Xiaowen Chu".into(), "/authors/xiaowen-chu/".into())], abstract_html: "word ".repeat(200) }).collect();
    let n = 20000;
    // tera 1
    let mut t1 = tera1::Tera::default();
    t1.add_raw_template("list.html", T).unwrap();
    let pv1 = tera1::to_value(&papers).unwrap();
    let start = Instant::now(); let mut bytes = 0;
    for _ in 0..n { let mut c = tera1::Context::new(); c.insert("title", "Term"); c.insert("papers", &pv1); bytes += t1.render("list.html", &c).unwrap().len(); }
    println!("tera 1.20: {:?} per page, {} bytes", start.elapsed() / n, bytes / n as usize);
    // tera 2
    let mut t2 = tera2::Tera::new();
    t2.add_raw_template("list.html", T).unwrap();
    let pv2 = tera2::Value::from_serializable(&papers);
    let start = Instant::now(); let mut bytes = 0;
    for _ in 0..n { let mut c = tera2::Context::new(); c.insert("title", "Term"); c.insert_value("papers", pv2.clone()); bytes += t2.render("list.html", &c).unwrap().len(); }
    println!("tera 2.4 fast: {:?} per page, {} bytes", start.elapsed() / n, bytes / n as usize);
}
