/// Reports on the host a runtime warning that the worker of `boundary` raised, where the host
/// runs the request or the effect's proxy that it came with: inside a test store, the test
/// fails, as it would had the warning been raised in one process.
///
/// ```swift
/// reportWorkerWarning(warning.message, boundary: "counter1")
/// ```
func reportWorkerWarning(_ message: String, boundary: String) {
  RuntimeWarning.report(
    "The worker of boundary \"\(boundary)\" reported a warning: \(message)",
    at: SourceLocation(fileID: #fileID, line: #line))
}
