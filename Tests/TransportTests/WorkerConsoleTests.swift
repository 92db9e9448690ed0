import Testing

@testable import Transport

#if canImport(Glibc)
  import Glibc
#endif

/// The console without a process: the host's end of the one socket that is a worker's
/// standard input and output. Once for real in `WorkerLeakTests` (a worker's fd 0 and 1 are
/// the same socket, and no host descriptor stays open on it).
@Suite struct WorkerConsoleTests {
  /// Reads what `descriptor` holds now, or "" at its end.
  private func read(_ descriptor: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
    return String(decoding: buffer[0..<max(0, count)], as: UTF8.self)
  }

  private func write(_ text: String, to descriptor: Int32) -> Int {
    Array(text.utf8).withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
  }

  /// The end of the worker's input is not the end of its output: its last lines still reach
  /// the host, and only the host's close, at the output's end, releases the descriptor.
  @Test func endingTheInputLeavesTheOutputFlowing() throws {
    let (console, worker) = try WorkerConsole.make()
    defer { Glibc.close(worker) }
    try console.write(Array("launch\n".utf8))
    #expect(read(worker) == "launch\n")
    #expect(console.identity?.hasPrefix("socket:") == true)

    console.closeInput()
    // The worker sees the end of its input (and would exit) ...
    #expect(read(worker) == "")
    // ... while what it writes on its way out still comes.
    #expect(write("last line\n", to: worker) == 10)
    #expect(read(console.descriptor) == "last line\n")
    // Input once ended stays ended, and says so in the worker's terms.
    #expect(throws: TransportError.self) { try console.write(Array("more\n".utf8)) }
    console.closeInput()

    console.close()
    #expect(console.identity == nil)
    // A late close does nothing, and nothing is written to a number closed.
    console.close()
    #expect(throws: TransportError.self) { try console.write(Array("late\n".utf8)) }
  }

  /// A worker that died before its launch gives an error, not a SIGPIPE that would stop the
  /// host.
  @Test func writingToAWorkerThatIsGoneThrows() throws {
    let (console, worker) = try WorkerConsole.make()
    defer { console.close() }
    Glibc.close(worker)
    #expect(throws: TransportError.self) { try console.write(Array("launch\n".utf8)) }
  }
}
