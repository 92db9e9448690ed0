import Bulkhead
import BulkheadDistribution
import Foundation

/// Makes a value of a `Decodable` type from its text, as Swift prints it or as JSON: the
/// text is read into the shape Swift's synthesized `Codable` gives the value, and the type's
/// own `init(from:)` does the rest, so any `Codable` action reads without a macro or a
/// parser of its own. When the decoder refuses, its coding path leads back to the column
/// where the text went wrong, and a case its enum lacks gets the cases that fit there.
///
/// ```swift
/// let action = try ActionReader.read(Counter.Action.self, from: ".incrementButtonTapped")
/// ```
enum ActionReader {
  /// The value of `type` that `text` spells.
  ///
  /// - Throws: `ActionSyntaxError` with the column where the text stops making sense.
  static func read<Value: Decodable>(_ type: Value.Type, from text: String) throws(ActionSyntaxError) -> Value {
    var parser = PrintedValueParser(text: text)
    var tree = try parser.parse()
    while true {
      do {
        return try JSONDecoder().decode(Value.self, from: Data(tree.json.utf8))
      } catch let error as DecodingError {
        // An enum with String raw values prints its case's name and codes its raw value,
        // which is the name unless the enum says otherwise: read the name as that string.
        if case let .typeMismatch(type, context) = error, type == String.self,
          let name = follow(context.codingPath, in: tree).bareCaseName
        {
          let node = follow(context.codingPath, in: tree)
          tree = tree.replacing(at: context.codingPath, with: PrintedValue(shape: .string(name), column: node.column))
          continue
        }
        throw explain(error, in: tree)
      } catch {
        throw ActionSyntaxError(column: tree.column, problem: "\(error)")
      }
    }
  }

  /// Where in `tree` the decoder stopped, and why, in the words of the text.
  private static func explain(_ error: DecodingError, in tree: PrintedValue) -> ActionSyntaxError {
    switch error {
    case let .typeMismatch(type, context):
      let node = follow(context.codingPath, in: tree)
      if let cases = EnumCaseNames.of(type) {
        return unknownCase(of: type, cases: cases, at: node)
      }
      // A keyed container was wanted: a case or a value with labels, whose type the decoder
      // does not say.
      if type == [String: Any].self {
        return ActionSyntaxError(column: node.column, problem: "expected a case (.name) or labelled values in parentheses here")
      }
      return ActionSyntaxError(column: node.column, problem: "expected \(describe(type)) here")
    case let .keyNotFound(key, context):
      let node = follow(context.codingPath, in: tree)
      let problem =
        key.stringValue.hasPrefix("_")
        ? "this needs a value in its parentheses (\(ordinal(key.stringValue)) is missing)"
        : "this needs \"\(key.stringValue):\" in its parentheses"
      return ActionSyntaxError(column: node.column, problem: problem)
    case let .valueNotFound(type, context):
      let node = follow(context.codingPath, in: tree)
      return ActionSyntaxError(column: node.column, problem: "expected \(describe(type)) here, not nil")
    case let .dataCorrupted(context):
      let node = follow(context.codingPath, in: tree)
      return ActionSyntaxError(column: node.column, problem: context.debugDescription)
    @unknown default:
      return ActionSyntaxError(column: tree.column, problem: "\(error)")
    }
  }

  /// A case name its enum lacks (or none where one was expected), with the cases that fit.
  private static func unknownCase(of type: Any.Type, cases: [String], at node: PrintedValue) -> ActionSyntaxError {
    let name = String(reflecting: type)
    guard case let .object(members) = node.shape, members.count == 1 else {
      return ActionSyntaxError(column: node.column, problem: "expected a case of \(name) here", fitting: cases)
    }
    let written = members[0].key
    let guess = ClosestName.suggestion(for: written, among: cases)
    return ActionSyntaxError(
      column: node.column, problem: "\(name) has no case \"\(written)\"\(guess)", fitting: cases)
  }

  /// The deepest node of `tree` along `path`.
  private static func follow(_ path: [any CodingKey], in tree: PrintedValue) -> PrintedValue {
    var node = tree
    for key in path {
      guard let next = key.intValue.flatMap(node.element) ?? node.member(key.stringValue) else { break }
      node = next
    }
    return node
  }

  /// A type as a person would name it: `Int`, `String`, `Examples.Counter.Action`.
  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    case is any BinaryInteger.Type: "a whole number (\(type))"
    case is any BinaryFloatingPoint.Type: "a number (\(type))"
    default: "a value of \(String(reflecting: type))"
    }
  }

  /// `_0` as "the 1st value", `_1` as "the 2nd", …
  private static func ordinal(_ key: String) -> String {
    guard let index = Int(key.dropFirst()) else { return key }
    let suffix = switch (index + 1) % 10 {
    case 1 where (index + 1) % 100 != 11: "st"
    case 2 where (index + 1) % 100 != 12: "nd"
    case 3 where (index + 1) % 100 != 13: "rd"
    default: "th"
    }
    return "the \(index + 1)\(suffix) value"
  }
}
