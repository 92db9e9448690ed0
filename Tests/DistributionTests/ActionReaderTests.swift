import Bulkhead
@testable import BulkheadTools
import ExampleApps
import Examples
import Foundation
import Testing

/// Reading an action from the text `run` prints, or from JSON, with the action's own
/// `Decodable`: every example app's script reads back from its printed form, and text that
/// does not make an action says where and what fits there.
@Suite struct ActionReaderTests {
  /// Every action of every example app's script, printed as `run` prints it, reads back as
  /// an action that prints the same and is equal to it.
  @Test @MainActor func everyScriptedActionOfTheExamplesReadsBackFromItsPrintedForm() async {
    let checker = RoundTrip()
    for app in ExampleApp.all {
      _ = await app.drive(within: nil, by: checker) { _ in }
    }
    #expect(checker.counts.read > 40, "\(checker.counts)")
    #expect(checker.failures.isEmpty, "\(checker.failures.joined(separator: "\n"))")
  }

  @Test func theShortFormsReadAsThePrintedOnes() throws {
    let printed = try ActionReader.read(Notes.Action.self, from: "path(.element(id: 0, action: .detail(.bodyChanged(\"Milk \\\"2%\\\"\\n\"))))")
    #expect(printed == .path(.element(id: 0, action: .detail(.bodyChanged("Milk \"2%\"\n")))))
    let json = try ActionReader.read(Notes.Action.self, from: #"{"deleteButtonTapped":{"id":3}}"#)
    #expect(json == .deleteButtonTapped(id: 3))
    #expect(try ActionReader.read(TwoCounters.Action.self, from: "  counter2( .decrementButtonTapped ) ") == .counter2(.decrementButtonTapped))
    #expect(try ActionReader.read(Timers.Action.self, from: "removeTimerTapped(id: -2)") == .removeTimerTapped(id: -2))
  }

  @Test func aCaseItsEnumLacksIsPointedAtWithTheCasesThatFitThere() {
    let error = failure(TwoCounters.Action.self, "counter1(.incrementButonTapped)")
    #expect(error?.column == 11)
    #expect(error?.problem == #"Examples.Counter.Action has no case "incrementButonTapped" (did you mean "incrementButtonTapped"?)"#)
    #expect(Set(error?.fitting ?? []) == ["incrementButtonTapped", "decrementButtonTapped"])
    #expect(
      error?.pointing(at: "counter1(.incrementButonTapped)")
        == """
        at column 11: Examples.Counter.Action has no case "incrementButonTapped" (did you mean "incrementButtonTapped"?)
          counter1(.incrementButonTapped)
                    ^
        the cases that fit there: \(error?.fitting.joined(separator: ", ") ?? "")
        """)
    let root = failure(TwoCounters.Action.self, "counter3(.incrementButtonTapped)")
    #expect(root?.column == 1 && Set(root?.fitting ?? []) == ["counter1", "counter2"])
  }

  @Test func aPayloadOfTheWrongShapeSaysWhatItNeeds() {
    let missing = failure(Notes.Action.self, "deleteButtonTapped(idd: 3)")
    #expect(missing?.column == 1 && missing?.problem == #"this needs "id:" in its parentheses"#)
    let unlabelled = failure(Notes.Action.self, "path(.element(id: 0, action: .detail(.bodyChanged)))")
    #expect(unlabelled?.column == 39 && unlabelled?.problem == "this needs a value in its parentheses (the 1st value is missing)")
    let type = failure(Notes.Action.self, #"deleteButtonTapped(id: "three")"#)
    #expect(type?.column == 24 && type?.problem.contains("expected a whole number") == true)
  }

  @Test func textThatIsNotAValueSaysWhereItStops() {
    #expect(failure(TwoCounters.Action.self, "counter1(.incrementButtonTapped")?.column == 32)
    #expect(failure(TwoCounters.Action.self, "counter1(.incrementButtonTapped))")?.column == 33)
    #expect(failure(TwoCounters.Action.self, "")?.problem == "the action ends where an action or a value should follow")
    #expect(failure(Notes.Action.self, #"deleteButtonTapped(id: "3)"#)?.problem == "this string has no closing quote")
    #expect(failure(Notes.Action.self, "counter1(.)")?.column == 11)
    #expect(failure(TwoCounters.Action.self, #"counter1("x")"#)?.problem == "expected a case (.name) or labelled values in parentheses here")
    // Deep nesting is refused where it gets too deep, not by running out of stack.
    let deep = failure(TwoCounters.Action.self, String(repeating: "counter1(", count: 50_000))
    #expect(deep?.column == PrintedValueParser.deepest * 9 + 1 && deep?.problem.contains("nested more than") == true)
  }

  private func failure<Action: Decodable>(_ type: Action.Type, _ text: String) -> ActionSyntaxError? {
    do {
      _ = try ActionReader.read(type, from: text)
      return nil
    } catch {
      return error
    }
  }
}

/// Reads each action of a script back from its printed form.
@MainActor private final class RoundTrip: ScriptDriver {
  var counts = (read: 0, notDecodable: 0)
  var failures: [String] = []

  func drive<State: Sendable, Action: Sendable>(_ script: ActionScript<State, Action>) async {
    guard let decodable = Action.self as? any Decodable.Type else {
      counts.notDecodable += 1
      return
    }
    for action in script.actions {
      let text = "\(action)"
      do {
        let read = try Self.read(text, as: decodable)
        let same = "\(read)" == text && (read as? any Equatable).map { Self.equal($0, action) } ?? true
        if same { counts.read += 1 } else { failures.append("\(text) read back as \(read)") }
      } catch {
        failures.append(error.pointing(at: text))
      }
    }
  }

  private static func read<Readable: Decodable>(_ text: String, as _: Readable.Type) throws(ActionSyntaxError) -> Any {
    try ActionReader.read(Readable.self, from: text)
  }

  private static func equal<Value: Equatable>(_ value: Value, _ other: Any) -> Bool { value == other as? Value }
}
