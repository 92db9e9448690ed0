/// Reads the text of one value, as Swift prints it or as JSON, into a `PrintedValue`.
///
/// Swift prints an enum case as its name, qualified by its type when nested
/// (`Examples.Counter.Action.incrementButtonTapped`), then its payload in parentheses with
/// the labels it was declared with; a struct as its type and its properties with labels;
/// strings quoted and escaped; optionals as `Optional(x)` or `nil`; arrays and dictionaries
/// in brackets; UUIDs bare; a stack element's id as `#3`. People write the same with a leading dot instead of the type
/// (`.incrementButtonTapped`). A qualified name whose last part starts in upper case with
/// a payload is a struct; any other name is an enum case.
///
/// ```swift
/// try PrintedValueParser(text: #"rows(.element(id: 3, action: .edit("milk")))"#).parse()
/// ```
struct PrintedValueParser {
  private let characters: [Character]
  private var position = 0
  /// How deep the value being read is nested, and how deep it may be: text from outside must
  /// not run the host out of stack.
  private var depth = 0
  static let deepest = 100

  init(text: String) {
    characters = Array(text)
  }

  /// The one value the whole text holds.
  ///
  /// - Throws: `ActionSyntaxError` at the column where the text stops making sense.
  mutating func parse() throws(ActionSyntaxError) -> PrintedValue {
    skipSpaces()
    let value = try readValue()
    skipSpaces()
    guard position == characters.count else {
      throw wrong("nothing after the action", found: true)
    }
    return value
  }

  // MARK: Values

  private mutating func readValue() throws(ActionSyntaxError) -> PrintedValue {
    skipSpaces()
    let column = position + 1
    guard depth < Self.deepest else {
      throw ActionSyntaxError(column: column, problem: "values are nested more than \(Self.deepest) deep here")
    }
    depth += 1
    defer { depth -= 1 }
    guard let next = peek else { throw wrong("an action or a value") }
    if let uuid = readUUID() { return PrintedValue(shape: .string(uuid), column: column) }
    switch next {
    case "\"": return PrintedValue(shape: .string(try readString()), column: column)
    case "[": return try readBrackets()
    case "{": return try readObject()
    case "-", "0"..."9": return PrintedValue(shape: .number(try readNumber()), column: column)
    case "#":
      // A stack element's id prints as `#3`, and codes as the number.
      position += 1
      guard peek?.isNumber == true else { throw wrong("a stack element's number after #") }
      return PrintedValue(shape: .number(try readNumber()), column: column)
    case ".":
      position += 1
      guard let name = readIdentifier() else { throw wrong("a case name after the dot") }
      return try readCase(name, column: column + 1)
    default:
      return try readNamed()
    }
  }

  /// `name`, `Type.Path.name`, `name(payload)`, `Type(properties)`, and the literals
  /// `true`, `false`, `nil` and `null`.
  private mutating func readNamed() throws(ActionSyntaxError) -> PrintedValue {
    var column = position + 1
    guard var name = readIdentifier() else { throw wrong("an action or a value") }
    var qualified = false
    skipGenericArguments()
    while peek == ".", let following = peek(at: 1), following.isIdentifierStart {
      position += 1
      column = position + 1
      name = readIdentifier() ?? name
      skipGenericArguments()
      qualified = true
    }
    if !qualified {
      switch name {
      case "true", "false": return PrintedValue(shape: .bool(name == "true"), column: column)
      case "nil", "null": return PrintedValue(shape: .null, column: column)
      default: break
      }
    }
    if name.first?.isUppercase == true, peek == "(" {
      let arguments = try readArguments()
      // Swift prints a wrapped optional as `Optional(x)`; its JSON is the value itself.
      if name == "Optional", arguments.count == 1, arguments[0].key == "_0" { return arguments[0].value }
      return PrintedValue(shape: .object(arguments), column: column)
    }
    return try readCase(name, column: column)
  }

  /// A case named `name` (read already) and its payload, if one follows: the shape of
  /// Swift's synthesized coding, `{"name":{}}` or `{"name":{"_0":…,"label":…}}`.
  private mutating func readCase(_ name: String, column: Int) throws(ActionSyntaxError) -> PrintedValue {
    let payload = peek == "(" ? try readArguments() : []
    let inner = PrintedValue(shape: .object(payload), column: column)
    return PrintedValue(shape: .object([PrintedValue.Member(key: name, value: inner)]), column: column)
  }

  /// `(a, label: b)`: each argument keyed by its label, or `_N` for the Nth without one.
  private mutating func readArguments() throws(ActionSyntaxError) -> [PrintedValue.Member] {
    position += 1
    var members: [PrintedValue.Member] = []
    skipSpaces()
    if peek == ")" {
      position += 1
      return members
    }
    while true {
      skipSpaces()
      let key = readLabel() ?? "_\(members.count)"
      members.append(PrintedValue.Member(key: key, value: try readValue()))
      if try endOfList(closedBy: ")") { return members }
    }
  }

  /// `label:` before an argument, if there is one; the position is left as it was if not.
  private mutating func readLabel() -> String? {
    let start = position
    if let label = readIdentifier() {
      skipSpaces()
      if peek == ":" {
        position += 1
        return label
      }
    }
    position = start
    return nil
  }

  /// `[a, b]`, `[]`, `[key: value, …]` or `[:]`; a dictionary's keys become an object's.
  private mutating func readBrackets() throws(ActionSyntaxError) -> PrintedValue {
    let column = position + 1
    position += 1
    skipSpaces()
    if peek == "]" {
      position += 1
      return PrintedValue(shape: .array([]), column: column)
    }
    if peek == ":" {
      position += 1
      try expect("]")
      return PrintedValue(shape: .object([]), column: column)
    }
    var elements: [PrintedValue] = []
    var members: [PrintedValue.Member] = []
    while true {
      let element = try readValue()
      skipSpaces()
      if peek == ":" || !members.isEmpty {
        try expect(":")
        members.append(PrintedValue.Member(key: try key(element), value: try readValue()))
        skipSpaces()
      } else {
        elements.append(element)
      }
      if try endOfList(closedBy: "]") {
        return PrintedValue(shape: members.isEmpty ? .array(elements) : .object(members), column: column)
      }
    }
  }

  /// `{"key": value, …}`: JSON's object.
  private mutating func readObject() throws(ActionSyntaxError) -> PrintedValue {
    let column = position + 1
    position += 1
    var members: [PrintedValue.Member] = []
    skipSpaces()
    if peek == "}" {
      position += 1
      return PrintedValue(shape: .object([]), column: column)
    }
    while true {
      skipSpaces()
      guard peek == "\"" else { throw wrong("a quoted key", found: peek != nil) }
      let key = try readString()
      try expect(":")
      members.append(PrintedValue.Member(key: key, value: try readValue()))
      if try endOfList(closedBy: "}") { return PrintedValue(shape: .object(members), column: column) }
    }
  }

  /// After an item of a list: true past the list's `closing` character, false past the comma
  /// before the next item.
  private mutating func endOfList(closedBy closing: Character) throws(ActionSyntaxError) -> Bool {
    skipSpaces()
    switch peek {
    case ",":
      position += 1
      return false
    case closing:
      position += 1
      return true
    default:
      throw wrong("\",\" or \"\(closing)\"", found: peek != nil)
    }
  }

  /// A dictionary key as JSON's object keys are: its text.
  private func key(_ value: PrintedValue) throws(ActionSyntaxError) -> String {
    switch value.shape {
    case let .string(text), let .number(text): return text
    default:
      throw ActionSyntaxError(column: value.column, problem: "a dictionary key must be a string or a number")
    }
  }

  // MARK: Tokens

  private mutating func readString() throws(ActionSyntaxError) -> String {
    let opening = position
    position += 1
    var text = ""
    while let character = peek {
      position += 1
      switch character {
      case "\"": return text
      case "\\": text.unicodeScalars.append(contentsOf: try readEscape())
      default: text.append(character)
      }
    }
    throw ActionSyntaxError(column: opening + 1, problem: "this string has no closing quote")
  }

  /// What follows a backslash: Swift's escapes (`\n`, `\u{1F600}`) and JSON's (`\u00e9`).
  private mutating func readEscape() throws(ActionSyntaxError) -> [Unicode.Scalar] {
    let column = position
    guard let character = peek else { throw wrong("an escaped character") }
    position += 1
    switch character {
    case "n": return ["\n"]
    case "r": return ["\r"]
    case "t": return ["\t"]
    case "0": return ["\0"]
    case "\"", "\\", "'", "/": return Array(character.unicodeScalars)
    case "u":
      let braced = peek == "{"
      if braced { position += 1 }
      var digits = ""
      while let next = peek, next.isHexDigit, digits.count < (braced ? 8 : 4) {
        digits.append(next)
        position += 1
      }
      if braced, peek == "}" { position += 1 } else if braced { digits = "" }
      guard let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) else {
        throw ActionSyntaxError(column: column, problem: "\\u needs a character's hex code: \\u{1F600} or \\u00e9")
      }
      return [scalar]
    default:
      throw ActionSyntaxError(column: column, problem: "\\\(character) is not an escape a string can hold")
    }
  }

  /// JSON's number syntax: `-12`, `3.5`, `1e-3`.
  private mutating func readNumber() throws(ActionSyntaxError) -> String {
    let start = position
    if peek == "-" { position += 1 }
    guard readDigits() else { throw wrong("a digit") }
    if peek == ".", let following = peek(at: 1), following.isASCII, following.isNumber {
      position += 1
      _ = readDigits()
    }
    if peek == "e" || peek == "E" {
      position += 1
      if peek == "+" || peek == "-" { position += 1 }
      guard readDigits() else { throw wrong("the exponent's digits") }
    }
    return String(characters[start..<position])
  }

  private mutating func readDigits() -> Bool {
    let start = position
    while let next = peek, next.isASCII, next.isNumber { position += 1 }
    return position > start
  }

  private mutating func readIdentifier() -> String? {
    guard let first = peek, first.isIdentifierStart else { return nil }
    let start = position
    position += 1
    while let next = peek, next.isIdentifierStart || (next.isASCII && next.isNumber) { position += 1 }
    return String(characters[start..<position])
  }

  /// `<…>` after a type's name (`PresentationAction<Examples.Sheet.Action>`): the case
  /// that follows says all the decoder needs.
  private mutating func skipGenericArguments() {
    guard peek == "<" else { return }
    var depth = 0
    var end = position
    while end < characters.count {
      if characters[end] == "<" { depth += 1 }
      if characters[end] == ">" { depth -= 1 }
      end += 1
      if depth == 0 {
        position = end
        return
      }
    }
  }

  /// A UUID as Swift prints it, bare: `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
  private mutating func readUUID() -> String? {
    let groups = [8, 4, 4, 4, 12]
    var end = position
    for (index, length) in groups.enumerated() {
      for _ in 0..<length {
        guard end < characters.count, characters[end].isHexDigit else { return nil }
        end += 1
      }
      if index < groups.count - 1 {
        guard end < characters.count, characters[end] == "-" else { return nil }
        end += 1
      }
    }
    if end < characters.count, characters[end].isIdentifierStart || characters[end].isHexDigit { return nil }
    defer { position = end }
    return String(characters[position..<end])
  }

  private mutating func expect(_ character: Character) throws(ActionSyntaxError) {
    skipSpaces()
    guard peek == character else { throw wrong("\"\(character)\"", found: peek != nil) }
    position += 1
  }

  private mutating func skipSpaces() {
    while let next = peek, next.isWhitespace { position += 1 }
  }

  private var peek: Character? { peek(at: 0) }

  private func peek(at offset: Int) -> Character? {
    position + offset < characters.count ? characters[position + offset] : nil
  }

  /// What was expected at the current column, and what is there instead.
  private func wrong(_ expected: String, found: Bool = false) -> ActionSyntaxError {
    guard found, let character = peek else {
      return ActionSyntaxError(column: position + 1, problem: "the action ends where \(expected) should follow")
    }
    return ActionSyntaxError(column: position + 1, problem: "expected \(expected), found \"\(character)\"")
  }
}

extension Character {
  fileprivate var isIdentifierStart: Bool { self == "_" || isLetter }
}
