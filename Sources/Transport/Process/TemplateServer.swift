import CSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The template's side of a `WorkerTemplate`: once it has loaded and warmed its code, it
/// forks a worker for each request of its host, until the host lets it go.
///
/// ```swift
/// let launch = try WorkerLaunch.receive(watchingInput: false)
/// let connection = try launch.connect()
/// try TemplateServer.serve(connection) { request in serveBoundary(request) }
/// ```
package enum TemplateServer {
  /// What each new worker runs.
  private final class Child {
    let body: (String) -> Never
    init(_ body: @escaping (String) -> Never) { self.body = body }
  }

  /// Serves `connection`'s requests until the host closes it or standard input ends; runs
  /// `child` with each request's text in the new worker, on its only thread (not the main
  /// thread of the process it was forked from). Call it with no other thread running: the
  /// template refuses to fork with more than its main thread, waiting, and its serving one.
  package static func serve(_ connection: FramedConnection, child: @escaping (String) -> Never) throws(TransportError) {
    let box = Unmanaged.passRetained(Child(child))
    defer { box.release() }
    let result = bulkhead_template_serve(connection.socket.descriptor, STDIN_FILENO, { context, request in
      guard let context, let request else { _exit(70) }
      Unmanaged<Child>.fromOpaque(context).takeUnretainedValue().body(String(cString: request))
    }, box.toOpaque())
    if result != 0 { throw .system("bulkhead_template_serve", "the worker template's socket") }
  }
}
