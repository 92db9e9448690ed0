@testable import BulkheadTools
import Foundation
import Testing

/// The run directory and its run files refuse what they cannot use with a case that names
/// the file and what is wrong with it.
@Suite struct RunDirectoryTests {
  /// A fresh directory for one test, removed after it.
  private func withScratch(_ body: (String) throws -> Void) throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("bulkhead-run-test-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: path) }
    try body(path)
  }

  @Test func aMissingOrSharedRunDirectoryIsRefusedByCase() throws {
    try withScratch { scratch in
      let missing = "\(scratch)/bulkhead-missing"
      #expect(throws: DetachedError.noRunDirectory(path: missing)) { try RunDirectory.open(creating: false, at: missing) }
      let shared = "\(scratch)/bulkhead-shared"
      try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
      #expect(throws: DetachedError.runDirectoryNotPrivate(path: shared, mode: 0o755, owner: getuid())) {
        try RunDirectory.open(creating: false, at: shared)
      }
    }
  }

  @Test func aRunFileNotWrittenByAHostOrWrittenTwiceIsRefusedByCase() throws {
    try withScratch { scratch in
      let directory = try RunDirectory.open(creating: true, at: "\(scratch)/bulkhead-run")
      let path = directory.runFile(of: "timers")
      try Data("hello\n".utf8).write(to: URL(fileURLWithPath: path))
      #expect(throws: DetachedError.notARunFile(path: path)) { try RunFile.read(at: path) }
      try FileManager.default.removeItem(atPath: path)
      let run = RunFile(pid: getpid(), controlSocket: "\(scratch)/control.sock", placement: "")
      try run.publish(at: path)
      #expect(throws: DetachedError.cannotWriteRunFile(path: path, errno: EEXIST)) { try run.publish(at: path) }
      #expect(throws: DetachedError.lineBreakInRunFile(path: path, field: "a\nb")) {
        try RunFile(pid: getpid(), controlSocket: "a\nb", placement: "").publish(at: path)
      }
    }
  }
}
