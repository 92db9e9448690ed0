import Bulkhead
import BulkheadDistribution
import Foundation

/// A process as Linux's /proc shows it at one moment: its state letter, CPU time, age and
/// resident memory, for `ps` and `top`.
///
/// ```swift
/// let worker = ProcessState(of: pid)
/// worker?.state  // "S"
/// ```
struct ProcessState: Equatable, Sendable {
  /// `R` running, `S` sleeping, `D` waiting on the disk, `T` stopped, `Z` exited and not
  /// yet reaped, and the kernel's rarer letters.
  let state: Character
  /// Its parent's pid.
  let parent: Int32
  /// User and system CPU time, in clock ticks.
  let cpuTicks: Int
  /// When the process started, in clock ticks since the machine booted.
  let startTicks: Int
  /// Resident memory, in kilobytes; nil for a process that has none to show (exited).
  let residentKilobytes: Int?

  /// Clock ticks per second, the unit of /proc's times.
  static let ticksPerSecond = max(1, sysconf(Int32(_SC_CLK_TCK)))

  /// Reads /proc/`pid`; nil when there is no such process.
  init?(of pid: Int32) {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let nameEnd = stat.lastIndex(of: ")")
    else { return nil }
    // After the name, which may hold spaces and parentheses: field 3 (the state) onwards.
    let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
    guard fields.count > 19, let state = fields[0].first, let parent = Int32(fields[1]), let user = Int(fields[11]),
      let system = Int(fields[12]), let start = Int(fields[19])
    else { return nil }
    self.state = state
    self.parent = parent
    cpuTicks = user + system
    startTicks = start
    residentKilobytes = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)).flatMap(Self.resident)
  }

  /// Whether the process has not exited: an exited one waits as a zombie until reaped.
  var isAlive: Bool { state != "Z" && state != "X" }

  /// How long the process has run, in seconds, given the machine's uptime.
  func age(machineUptime: Double) -> Double {
    max(0, machineUptime - Double(startTicks) / Double(Self.ticksPerSecond))
  }

  /// The machine's uptime in seconds, the clock of `startTicks`.
  static func machineUptime() -> Double {
    (try? String(contentsOfFile: "/proc/uptime", encoding: .utf8))?.split(separator: " ").first.flatMap { Double($0) } ?? 0
  }

  private static func resident(in status: String) -> Int? {
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
    return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
  }
}
