@testable import Bulkhead
import Testing

// Enums of one byte without references, each laid out differently, whose case paths read a
// value's case and payload from a table of byte values (`EnumLayout.byteCases`).
private enum Child: Equatable, Sendable, CaseIterable { case a, b }
private enum Three: Equatable, Sendable, CaseIterable { case x, y, z }
private struct Empty: Equatable, Sendable {}

/// Several payload cases of one type: the tag lives in the payload's spare bits.
private enum SharedPayloads: Equatable, Sendable {
  case first(Child), second(Child), plain
  static let all: [Self] = Child.allCases.flatMap { [.first($0), .second($0)] } + [.plain]
}

/// Payloads of different types, one with spare bits of its own (`Bool`).
private enum MixedPayloads: Equatable, Sendable {
  case child(Child), flag(Bool), three(Three), none
  static let all: [Self] =
    Child.allCases.map(Self.child) + [false, true].map(Self.flag) + Three.allCases.map(Self.three) + [.none]
}

/// One payload case, the others stored in the payload's extra inhabitants.
private enum ExtraInhabitants: Equatable, Sendable {
  case three(Three), empty(Empty), other
  static let all: [Self] = Three.allCases.map(Self.three) + [.empty(Empty()), .other]
}

/// A payload that is itself a multi-payload enum.
private enum Nested: Equatable, Sendable {
  case shared(SharedPayloads), child(Child)
  static let all: [Self] = SharedPayloads.all.map(Self.shared) + Child.allCases.map(Self.child)
}

private enum Generic<T: Sendable & Equatable>: Equatable, Sendable {
  case value(T), nothing
}

/// Two bytes: a `UInt8` has no spare bits, so the tag takes a byte of its own.
private enum TwoBytes: Equatable, Sendable {
  case byte(UInt8), flag(Bool)
}

private final class Reference: Sendable {}
private enum WithReference: Sendable { case reference(Reference), child(Child) }

@Suite struct ByteSizedCasePathTests {
  /// Checks `path` against `if case` (given as `expected`) on every value, and that it takes
  /// the byte table.
  private func check<Root, Value: Equatable>(
    _ path: CasePath<Root, Value>, on values: [Root], expected: (Root) -> Value?,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    #expect(MemoryLayout<Root>.size == 1, sourceLocation: sourceLocation)
    #expect(path.isByteSized, sourceLocation: sourceLocation)
    for value in values {
      #expect(path.extract(from: value) == expected(value), "\(value)", sourceLocation: sourceLocation)
    }
  }

  @Test func readsCasesThatShareAPayloadType() {
    check(CasePath(SharedPayloads.first), on: SharedPayloads.all) {
      if case let .first(child) = $0 { child } else { nil }
    }
    check(CasePath(SharedPayloads.second), on: SharedPayloads.all) {
      if case let .second(child) = $0 { child } else { nil }
    }
  }

  @Test func readsPayloadsOfDifferentTypes() {
    check(CasePath(MixedPayloads.child), on: MixedPayloads.all) {
      if case let .child(child) = $0 { child } else { nil }
    }
    check(CasePath(MixedPayloads.flag), on: MixedPayloads.all) {
      if case let .flag(flag) = $0 { flag } else { nil }
    }
    check(CasePath(MixedPayloads.three), on: MixedPayloads.all) {
      if case let .three(three) = $0 { three } else { nil }
    }
  }

  @Test func readsCasesKeptInExtraInhabitants() {
    check(CasePath(ExtraInhabitants.three), on: ExtraInhabitants.all) {
      if case let .three(three) = $0 { three } else { nil }
    }
    check(CasePath(ExtraInhabitants.empty), on: ExtraInhabitants.all) {
      if case let .empty(empty) = $0 { empty } else { nil }
    }
  }

  @Test func readsNestedOptionalAndGenericEnums() {
    check(CasePath(Nested.shared), on: Nested.all) {
      if case let .shared(shared) = $0 { shared } else { nil }
    }
    check(CasePath(Nested.child), on: Nested.all) {
      if case let .child(child) = $0 { child } else { nil }
    }
    check(CasePath(Optional<Three>.some), on: Three.allCases.map { $0 } + [nil]) { $0 }
    let generic: [Generic<Bool>] = [.value(false), .value(true), .nothing]
    check(CasePath(Generic<Bool>.value), on: generic) {
      if case let .value(flag) = $0 { flag } else { nil }
    }
  }

  @Test func leavesOtherLayoutsToTheWitnesses() {
    let byte = CasePath(TwoBytes.byte)
    #expect(!byte.isByteSized)
    #expect(byte.extract(from: .byte(255)) == 255)
    #expect(byte.extract(from: .flag(true)) == nil)
    let child = CasePath(WithReference.child)
    #expect(!child.isByteSized)
    #expect(child.extract(from: .child(.b)) == .b)
    #expect(child.extract(from: .reference(Reference())) == nil)
  }
}
