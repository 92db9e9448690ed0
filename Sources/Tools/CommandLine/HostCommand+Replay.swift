import Bulkhead
import BulkheadDistribution
import Foundation

extension HostCommand {
  /// `--replay FILE`: runs the recording in `file` again, with the boundaries `placementFile`
  /// places (none: all in the host), prints what it found, and exits: 0 when every step
  /// matched, 1 at the first step that differs, 64 when the recording cannot be replayed.
  @MainActor
  static func replay(
    _ file: String, placementFile: String?, apps: [ScriptedApp], workerExecutable: String?, terminal: HostTerminal
  ) async -> Never {
    do {
      let recording = try Recording(contentsOf: file)
      guard let app = apps.named(recording.app) else {
        throw RecordingError(
          file: file, line: 1,
          reason: "the recording is of the app \"\(recording.app)\", which this host does not have; it has \(apps.map(\.name).joined(separator: ", "))")
      }
      let session = try session(of: app, placementFile: placementFile, workerExecutable: workerExecutable, terminal: terminal)
      terminal.say("replay \(file): \(recording.steps.count) steps of \"\(app.name)\", recorded with placement \(recording.placement)")
      switch try await session.replay(recording) {
      case let .matched(steps):
        terminal.say("replay matched all \(steps) steps")
        exit(0)
      case let .diverged(report):
        terminal.say(report)
        exit(1)
      case let .refused(error):
        throw error
      }
    } catch {
      terminal.fail("\(error)")
    }
  }
}
