//! A TCP proxy between a job and its database server, so a test can make the server misbehave
//! without touching it: the shared test servers are never stopped, and every other test keeps
//! talking to them directly meanwhile.
//!
//! It forwards faithfully until told otherwise, then either freezes (stops forwarding what the
//! job sends while every connection stays open, as a server stopped by SIGSTOP does) or goes
//! down (every connection it carries is closed and a new one is refused, as when the server
//! process is gone), and comes back.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One connection carried: its flag (set, nothing more is forwarded from the client) and both
/// of its sockets, to close them when the proxy goes down.
struct Carried {
    frozen: Arc<AtomicBool>,
    sockets: [TcpStream; 2],
}

/// A proxy on a port of its own in front of one server.
pub struct Proxy {
    pub port: u16,
    /// Freeze after this many `COMMIT`s (0: never).
    armed: Arc<AtomicUsize>,
    commits: Arc<AtomicUsize>,
    connections: Arc<Mutex<Vec<Carried>>>,
    /// Set, the port is closed: nothing is accepted.
    down: Arc<AtomicBool>,
}

impl Proxy {
    /// A proxy in front of the server `url` names, forwarding faithfully, and `url` through it.
    pub fn in_front_of(url: &str) -> (Proxy, String) {
        let mut proxied = url::Url::parse(url).expect("a server URL");
        let server = format!("{}:{}", proxied.host_str().expect("a host"), proxied.port().expect("a port"));
        let proxy = Proxy::to(&server);
        proxied.set_port(Some(proxy.port)).expect("a URL with a port");
        (proxy, proxied.to_string())
    }

    /// A proxy to `server` (`host:port`), forwarding faithfully.
    fn to(server: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
        let port = listener.local_addr().unwrap().port();
        let proxy = Proxy {
            port,
            armed: Arc::default(),
            commits: Arc::default(),
            connections: Arc::default(),
            down: Arc::default(),
        };
        let (armed, commits, connections, down) = (
            Arc::clone(&proxy.armed),
            Arc::clone(&proxy.commits),
            Arc::clone(&proxy.connections),
            Arc::clone(&proxy.down),
        );
        let server = server.to_string();
        std::thread::spawn(move || {
            let mut listener = Some(listener);
            loop {
                // Down: the port is closed, so a connection is refused as by a stopped server;
                // back up: the same port again.
                if down.load(SeqCst) {
                    listener = None;
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                let open = listener.get_or_insert_with(|| {
                    TcpListener::bind(("127.0.0.1", port)).expect("the proxy's port, again")
                });
                open.set_nonblocking(true).unwrap();
                let client = match open.accept() {
                    Ok((client, _)) => client,
                    Err(_) => {
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    }
                };
                client.set_nonblocking(false).unwrap();
                let Ok(upstream) = TcpStream::connect(&server) else { continue };
                let frozen = Arc::new(AtomicBool::new(false));
                let sockets = [client.try_clone().unwrap(), upstream.try_clone().unwrap()];
                connections.lock().unwrap().push(Carried { frozen: Arc::clone(&frozen), sockets });
                let (armed, commits, connections) =
                    (Arc::clone(&armed), Arc::clone(&commits), Arc::clone(&connections));
                let (c2, u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                let watch = Some((armed, commits, connections));
                std::thread::spawn(move || pump(client, upstream, frozen, watch));
                std::thread::spawn(move || pump(u2, c2, Arc::new(AtomicBool::new(false)), None));
            }
        });
        proxy
    }

    /// Freezes every connection after the `n`th `COMMIT` from now has gone through.
    pub fn freeze_after_commits(&self, n: usize) {
        self.armed.store(self.commits.load(SeqCst) + n, SeqCst);
    }

    /// New connections are carried faithfully again (the frozen ones stay frozen).
    pub fn thaw(&self) {
        self.armed.store(0, SeqCst);
    }

    /// The server goes away: every connection carried is closed, and new ones are refused
    /// until [`Proxy::up`].
    pub fn down(&self) {
        self.down.store(true, SeqCst);
        for carried in self.connections.lock().unwrap().drain(..) {
            carried.sockets.iter().for_each(|s| drop(s.shutdown(Shutdown::Both)));
        }
    }

    /// The server is back: new connections are carried faithfully.
    pub fn up(&self) {
        self.thaw();
        self.down.store(false, SeqCst);
    }
}

type Watch = (Arc<AtomicUsize>, Arc<AtomicUsize>, Arc<Mutex<Vec<Carried>>>);

/// Copies `from` to `to` until either closes or `frozen` is set; with `watch` (the client's
/// side), counts `COMMIT`s and freezes every connection at the armed count.
fn pump(mut from: TcpStream, mut to: TcpStream, frozen: Arc<AtomicBool>, watch: Option<Watch>) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut tail: Vec<u8> = Vec::new();
    from.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    loop {
        if frozen.load(SeqCst) {
            // Frozen: nothing is read or forwarded again; the connection stays open.
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                continue
            }
            Err(_) => break,
        };
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
        if let Some((armed, commits, connections)) = &watch {
            tail.extend_from_slice(&buf[..n]);
            let found = tail.windows(6).filter(|w| w == b"COMMIT").count();
            tail.drain(..tail.len().saturating_sub(5));
            if found > 0 {
                let count = commits.fetch_add(found, SeqCst) + found;
                let at = armed.load(SeqCst);
                if at > 0 && count >= at {
                    connections.lock().unwrap().iter().for_each(|c| c.frozen.store(true, SeqCst));
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}
