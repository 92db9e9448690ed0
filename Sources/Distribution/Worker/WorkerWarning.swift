import Bulkhead
import Synchronization

/// Reports on the host a runtime warning that the worker of `boundary` raised, to `handler`:
/// by default the current task's, where the host runs the request or the effect's proxy that
/// it came with. Inside a test store, the test fails, as it would had the warning been raised
/// in one process.
///
/// ```swift
/// reportWorkerWarning(warning.message, boundary: "counter1")
/// ```
func reportWorkerWarning(_ message: String, boundary: String, to handler: RuntimeWarning.Handler = .current) {
  handler.report(
    "The worker of boundary \"\(boundary)\" reported a warning: \(message)",
    at: SourceLocation(fileID: #fileID, line: #line))
}

/// The runtime warnings raised while a worker handled a request, or a host answered a
/// worker's question, kept to be sent along with the reply.
///
/// ```swift
/// let warnings = CollectedWarnings()
/// let reply = withRuntimeWarningHandler(warnings.append) { server.run(request) }
/// ```
final class CollectedWarnings: Sendable {
  private let messages = Mutex<[String]>([])

  @Sendable func append(_ warning: RuntimeWarning) {
    messages.withLock { $0.append(warning.message) }
  }

  var all: [String] { messages.withLock { $0 } }
}
