//! `scripts/test-databases.sh` stops only servers it started: a server whose pid
//! file lies in the script's state directory but that the script did not launch — a
//! developer's own, or one from before marks existed — is left running by `stop`, and `reset`
//! refuses to delete its data. `owns` tells a caller which URLs it may stop.

use std::path::Path;
use std::process::{Child, Command, Output};

use crate::harness::temp_dir;

/// A process named `name` (a copy of `sleep`): to the script it looks like that server.
/// Killed when dropped, should the test fail half-way.
struct Pretend(Child);

impl Drop for Pretend {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn pretend(dir: &Path, name: &str) -> Pretend {
    let sleep = ["/usr/bin/sleep", "/bin/sleep"].into_iter().find(|p| Path::new(p).exists()).expect("sleep");
    let fake = dir.join(name);
    std::fs::copy(sleep, &fake).expect("sleep copies");
    Pretend(Command::new(&fake).arg("600").spawn().expect("the pretend server runs"))
}

fn script(state: &Path, args: &[&str]) -> Output {
    Command::new("bash")
        .arg(crate::harness::repo("scripts/test-databases.sh"))
        .args(args)
        .env("GROUNDCHECK_DB_STATE", state)
        .output()
        .expect("bash runs")
}

#[test]
fn the_test_database_script_leaves_servers_it_did_not_start_running() {
    let state = temp_dir();
    let bin = temp_dir();
    let mariadb = state.path().join("mariadb");
    std::fs::create_dir_all(&mariadb).unwrap();
    let mut pretend = pretend(bin.path(), "mariadbd");
    let server = &mut pretend.0;
    std::fs::write(mariadb.join("mariadbd.pid"), server.id().to_string()).unwrap();

    let stop = script(state.path(), &["stop", "mariadb"]);
    let said = String::from_utf8_lossy(&stop.stderr);
    assert!(stop.status.success(), "{said}");
    assert!(server.try_wait().unwrap().is_none(), "stop left the server it did not start running: {said}");
    assert!(said.contains("was not started by this script: left running"), "{said}");

    let reset = script(state.path(), &["reset"]);
    let said = String::from_utf8_lossy(&reset.stderr);
    assert!(!reset.status.success(), "reset refuses: {said}");
    assert!(said.contains("not deleting it"), "{said}");
    assert!(mariadb.join("mariadbd.pid").exists(), "its data stays");
    assert!(server.try_wait().unwrap().is_none(), "reset left it running");

    // A mark for another pid (the server that was marked has gone) does not make it ours.
    std::fs::write(mariadb.join("started-by-script"), "pid=1 port=33306\n").unwrap();
    let stop = script(state.path(), &["stop", "mariadb"]);
    assert!(server.try_wait().unwrap().is_none(), "{}", String::from_utf8_lossy(&stop.stderr));

    let owns = script(state.path(), &["owns", "mysql://u:pw@127.0.0.1:33306/db"]);
    let said = String::from_utf8_lossy(&owns.stderr);
    assert_eq!(owns.status.code(), Some(1), "{said}");
    assert!(said.contains("not started by this script") && !said.contains("pw@"), "{said}");
    let remote = script(state.path(), &["owns", "postgres://u:pw@db.example:5432/db"]);
    assert_eq!(remote.status.code(), Some(1));

    // Marked with its own pid and port, it is the script's: `owns` agrees, `stop` stops it.
    let mark = format!("pid={} port=33306\n", server.id());
    std::fs::write(mariadb.join("started-by-script"), mark).unwrap();
    let owns = script(state.path(), &["owns", "mysql://u:pw@127.0.0.1:33306/db"]);
    assert!(owns.status.success(), "{}", String::from_utf8_lossy(&owns.stderr));
    let other_port = script(state.path(), &["owns", "mysql://u:pw@127.0.0.1:3306/db"]);
    assert_eq!(other_port.status.code(), Some(1), "another port is another server");
    let stop = script(state.path(), &["stop", "mariadb"]);
    assert!(stop.status.success(), "{}", String::from_utf8_lossy(&stop.stderr));
    let ended = server.wait().unwrap();
    assert!(!ended.success(), "the marked server was stopped (SIGTERM)");
    assert!(!mariadb.join("started-by-script").exists(), "and its mark removed");
}
