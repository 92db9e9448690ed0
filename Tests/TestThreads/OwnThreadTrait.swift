import Testing

/// Runs each test of a suite, or one test, on a thread of its own (`onOwnThread`): for tests
/// that block their thread (processes, sockets, long computations), which would otherwise
/// hold one of the cooperative pool's few threads and stall every async test of the process.
///
/// ```swift
/// @Suite(.onItsOwnThread) struct CommandLineTests { … }
/// ```
package struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
  package var isRecursive: Bool { true }

  package func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await onOwnThread { try await function() }
  }
}

extension Trait where Self == OwnThreadTrait {
  /// Each test runs on a thread of its own, off the cooperative pool.
  package static var onItsOwnThread: Self { Self() }
}
