import Bulkhead
import BulkheadDistribution
import Foundation
internal import Transport

/// The terminal while `top` draws on it: the alternate screen, no cursor, keys read one at a
/// time without echo (Ctrl-C arrives as a key); `restore()` gives it back as it was. Standard
/// input that is not a terminal is read as it comes.
///
/// ```swift
/// let screen = RawTerminal.enter()
/// defer { screen.restore() }
/// screen.draw(["hello"])
/// ```
struct RawTerminal: Sendable {
  /// The settings to put back; nil when standard input is not a terminal.
  private let saved: termios?

  static func enter() -> RawTerminal {
    var settings = termios()
    guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &settings) == 0 else {
      return RawTerminal(saved: nil)
    }
    var raw = settings
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
    _ = tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    return RawTerminal(saved: settings)
  }

  /// Puts the terminal back: its settings, the cursor and the screen it had.
  func restore() {
    guard var settings = saved else { return }
    write("\u{1B}[?25h\u{1B}[?1049l")
    _ = tcsetattr(STDIN_FILENO, TCSANOW, &settings)
  }

  /// Draws `lines` from the top left over what was there, clearing what is left of the old.
  func draw(_ lines: [String]) {
    write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
  }

  /// The keys typed.
  var input: Keys { Keys() }

  private static func write(_ text: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
  }

  private func write(_ text: String) { Self.write(text) }

  /// Keys from standard input, until it ends.
  struct Keys {
    private var ended = false

    /// Waits until `deadline` for `q`, `Q` or Ctrl-C; true if one came. Input that ended
    /// (standard input from /dev/null) is waited out.
    mutating func waitForQuit(until deadline: ContinuousClock.Instant) -> Bool {
      while true {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return false }
        let milliseconds = Int32(clamping: max(1, left.wholeMilliseconds))
        var request = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        // Past the end of the input only the deadline is awaited: the refresh period.
        guard poll(&request, ended ? 0 : 1, milliseconds) > 0 else { continue }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &bytes, bytes.count)
        if count <= 0 {
          ended = true
          continue
        }
        if bytes.prefix(count).contains(where: { $0 == UInt8(ascii: "q") || $0 == UInt8(ascii: "Q") || $0 == 3 }) {
          return true
        }
      }
    }
  }
}
