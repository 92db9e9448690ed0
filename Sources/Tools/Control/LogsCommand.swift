import Bulkhead
import BulkheadDistribution
import Foundation
internal import Transport

/// `logs [BOUNDARY] [-f]`: the boundary log of a detached composition, all of it or one
/// boundary's lines; with `-f`, then the lines as they come until the composition goes down.
///
/// ```swift
/// try await LogsCommand(app: "timers", boundary: "timers", follow: true).run(terminal: terminal)
/// ```
struct LogsCommand {
  let app: String
  let boundary: String?
  let follow: Bool

  /// How often following checks that the host still lives: a host killed with SIGKILL says
  /// nothing on its way out.
  static let hostCheckPeriod: Int32 = 500

  func run(terminal: HostTerminal) async throws {
    // A composition that is down leaves its log to read; following needs one that is up.
    let target: ControlTarget? = follow ? try ControlTarget(app: app) : try? ControlTarget(app: app)
    if let target, let boundary {
      let (system, control) = try target.connect()
      defer { system.close() }
      let placed = try await target.calling { try await control.processes() }.map(\.boundary)
      guard placed.contains(boundary) else { throw DistributionError.unknownBoundary(boundary, known: placed) }
    }
    let directory = try target?.directory ?? RunDirectory.open(creating: false)
    let path = directory.boundaryLog(of: app)
    guard let log = FileHandle(forReadingAtPath: path) else {
      throw DetachedError.noLog(app: app, directory: directory.path)
    }
    defer { try? log.close() }
    var pending = Data()
    func show(_ data: Data) {
      pending.append(data)
      guard let end = pending.lastIndex(of: UInt8(ascii: "\n")) else { return }
      let text = String(decoding: pending[..<end], as: UTF8.self)
      pending.removeSubrange(...end)
      for line in text.split(separator: "\n", omittingEmptySubsequences: false)
      where boundary.map({ BoundaryLog.line(line, isAbout: $0) }) ?? true {
        terminal.say(String(line))
      }
    }
    show(log.readDataToEndOfFile())
    guard follow, let target else { return }
    let changes = try FileWatch(path: path, for: UInt32(IN_MODIFY))
    defer { changes.close() }
    while ProcessState(of: target.run.pid)?.isAlive == true {
      changes.wait(milliseconds: Self.hostCheckPeriod)
      show(log.readDataToEndOfFile())
    }
    show(log.readDataToEndOfFile())
    terminal.say("(\(app) is down)")
  }
}
