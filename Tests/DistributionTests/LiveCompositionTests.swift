import Bulkhead
@testable import BulkheadTools
import ExampleApps
import Examples
import Foundation
import TestThreads
import Testing

/// `./compose.sh send` and `state` on a composition that `up` started, as a person runs them:
/// a real detached host with real workers, whose states are checked against the same
/// actions sent to a store in this process.
@Suite(.onItsOwnThread, .serialized) struct LiveCompositionTests {
  /// The actions sent, in the forms a person writes them: as `run` prints them, with a
  /// leading dot, and as JSON; and the same actions in Swift.
  static let sent: [(text: String, action: Notes.Action)] = [
    ("noteTapped(id: 1)", .noteTapped(id: 1)),
    (
      "path(Bulkhead.StackAction<Examples.Notes.Path.State, Examples.Notes.Path.Action>.element(id: #2, "
        + #"action: Examples.Notes.Path.Action.detail(Examples.Notes.Detail.Action.bodyChanged("Oat milk, \"fresh\""))))"#,
      .path(.element(id: 2, action: .detail(.bodyChanged("Oat milk, \"fresh\"")))),
    ),
    ("path(.element(id: 2, action: .detail(.doneButtonTapped)))", .path(.element(id: 2, action: .detail(.doneButtonTapped)))),
    (#"{"addButtonTapped":{}}"#, .addButtonTapped),
    (#"destination(.presented(.editor(.titleChanged("Tea"))))"#, .destination(.presented(.editor(.titleChanged("Tea"))))),
  ]

  /// From a file: CRLF line ends, a comment and a blank line among them.
  static let fromFile: [(text: String, action: Notes.Action)] = [
    ("destination(.presented(.editor(.saveButtonTapped)))", .destination(.presented(.editor(.saveButtonTapped)))),
    ("deleteButtonTapped(id: 1)", .deleteButtonTapped(id: 1)),
  ]

  @Test func sendAndStateActOnTheRootStoreAsTheSameActionsDoInOneProcess() async throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    let placement = DocumentedCommandsTests.root.appendingPathComponent("placements/notes.placement").path
    let up = try compose("up", "notes", placement)
    #expect(up.status == 0, "\(up)")

    var expected = try await Self.inOneProcess(then: [])
    let before = try compose("state", "notes")
    #expect(before.status == 0 && before.output == "\(expected)\n", "\(before)")

    for (text, action) in Self.sent {
      expected = try await Self.inOneProcess(then: Self.sent.prefix { $0.text != text }.map(\.action) + [action])
      let send = try compose("send", "notes", text)
      #expect(send.status == 0, "\(send)")
      #expect(send.output.hasPrefix("→ \(action)\nstate: \(expected)\n"), "\(text)\n\(send)")
    }

    let file = compose.runtime.appendingPathComponent("actions.txt")
    let lines = ["# the editor's title is saved, then the first note goes", ""] + Self.fromFile.map(\.text)
    try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: file)
    let sendFile = try compose("send", "notes", "--file", file.path)
    #expect(sendFile.status == 0, "\(sendFile)")
    #expect(sendFile.output.components(separatedBy: "→ ").count == 3, "\(sendFile)")
    expected = try await Self.inOneProcess(then: (Self.sent + Self.fromFile).map(\.action))

    let printed = try compose("state", "notes")
    #expect(printed.output == "\(expected)\n", "\(printed)")
    let json = try compose("state", "notes", "--json")
    #expect(json.status == 0, "\(json)")
    #expect(try JSONDecoder().decode(Notes.State.self, from: Data(json.output.utf8)) == expected)
    let path = try compose("state", "notes", "path", "--json")
    #expect(try JSONDecoder().decode(StackState<Notes.Path.State>.self, from: Data(path.output.utf8)) == expected.path)
    // Deleting the note asks first: the alert is the destination now.
    let destination = try compose("state", "notes", "destination")
    #expect(destination.status == 0 && destination.output.hasPrefix("alert(Bulkhead.AlertState<"), "\(destination)")

    #expect(try compose("down", "notes").status == 0)
  }

  @Test func badActionsSayWhereAndSendNothing() throws {
    let compose = try Compose()
    defer { compose.cleanUp() }
    #expect(try compose("up", "two-counters").status == 0)
    let before = try compose("state", "two-counters")

    let typo = try compose("send", "two-counters", "counter1(.incrementButonTapped)")
    #expect(typo.status == 64)
    let lines = typo.error.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasSuffix(#"the action does not read at column 11: Examples.Counter.Action has no case "incrementButonTapped" (did you mean "incrementButtonTapped"?)"#) == true, "\(typo)")
    #expect(lines.dropFirst().first == "  counter1(.incrementButonTapped)")
    #expect(lines.dropFirst(2).first == "            ^")
    #expect(lines.last?.hasPrefix("the cases that fit there: ") == true && lines.last?.contains("decrementButtonTapped") == true)

    // A bad line in a file names the file and line, and none of its actions is sent.
    let file = compose.runtime.appendingPathComponent("steps.txt")
    try "counter1(.incrementButtonTapped)\n# a comment\ncounter2(.increment)\n".write(to: file, atomically: true, encoding: .utf8)
    let bad = try compose("send", "two-counters", "--file", file.path)
    #expect(bad.status == 64 && bad.error.contains("\(file.path):3: the action does not read at column 11"), "\(bad)")
    try Data("counter1(.incrementButtonTapped)\n\0\n".utf8).write(to: file)
    let nul = try compose("send", "two-counters", "--file", file.path)
    #expect(nul.status == 64 && nul.error.contains("\(file.path):2: the line holds a NUL byte"), "\(nul)")
    let unknown = try compose("state", "two-counters", "countr1")
    #expect(unknown.status == 64 && unknown.error.contains(#"there is no boundary "countr1" (did you mean "counter1"?)"#), "\(unknown)")

    #expect(try compose("state", "two-counters").output == before.output)
    #expect(try compose("down", "two-counters").status == 0)
  }

  /// The state of notes after its script and then `actions`, each sent and its effects
  /// awaited as `send` awaits them.
  @MainActor private static func inOneProcess(then actions: [Notes.Action]) async throws -> Notes.State {
    try await FinalState.of("notes", then: actions)
  }
}

/// Plays an app's script on a store of its own, then sends `then`, and keeps the state: what
/// a live composition's state must be after its script and the same actions sent to it.
@MainActor final class FinalState<Root: Sendable, Action: Sendable>: ScriptDriver {
  let then: [Action]
  var state: Root?

  private init(then: [Action]) { self.then = then }

  /// The state of `app` after its script and then `actions`, each sent and its effects
  /// awaited as `./compose.sh send` awaits them.
  static func of(_ app: String, then actions: [Action]) async throws -> Root {
    let driver = FinalState(then: actions)
    let found = try #require(ExampleApp.named(app))
    #expect(await found.drive(within: nil, by: driver) { _ in })
    return try #require(driver.state)
  }

  func drive<State: Sendable, ScriptAction: Sendable>(_ script: ActionScript<State, ScriptAction>) async {
    let store = Store(initialState: script.initialState) { Reduce(script.root.reduce) }
    await script.play(on: store)
    for case let action as ScriptAction in then { await store.send(action).finish() }
    state = store.state as? Root
  }
}
