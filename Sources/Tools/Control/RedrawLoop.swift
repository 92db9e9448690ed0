import Dispatch
import Foundation

/// How `top` shows its frames: on a terminal, redrawn in place once a second until `q`,
/// Ctrl-C, SIGTERM or SIGHUP, the terminal given back as it was; into a pipe or a file, one
/// plain frame with no escape codes, the second one, so that its rates cover a second.
///
/// ```swift
/// try await RedrawLoop.run { ["now: \(Date())"] }
/// ```
@MainActor
enum RedrawLoop {
  static let period = Duration.seconds(1)

  /// Shows what `frame` makes, each time it is called.
  static func run(_ frame: () async throws -> [String]) async throws {
    guard isatty(STDOUT_FILENO) == 1 else {
      _ = try await frame()
      try await Task.sleep(for: period)
      for line in try await frame() { print(line) }
      return
    }
    let screen = RawTerminal.enter()
    let signals = [SIGINT, SIGTERM, SIGHUP].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { @Sendable in
        screen.restore()
        exit(0)
      }
      source.resume()
      return source
    }
    defer {
      for source in signals { source.cancel() }
      screen.restore()
    }
    var input = screen.input
    while true {
      let drawn = ContinuousClock.now
      screen.draw(try await frame())
      if input.waitForQuit(until: drawn + period) { return }
    }
  }
}
