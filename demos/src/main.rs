//! The `cohort` command.
fn main() {
    println!("cohort");
}
