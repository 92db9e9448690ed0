import Bulkhead
import Foundation
import Testing

private enum Child: Equatable, Sendable { case a, b }
private struct Big: Equatable, Sendable { var x = 1, y = "two", z = [3.0] }
private final class Reference: Sendable {}
private enum Failure: Error, Equatable { case oops }

private enum Action: Equatable, Sendable {
  case first(Child)
  case second(Child)
  case plain
  case pair(Int, String)
  case big(Big)
  case other
  indirect case nested(Action)
  case error(Failure)
  case optional(Int?)
}

private struct Empty: Equatable, Sendable {}

private enum OnlyChild: Equatable, Sendable { case child(Child) }
private enum OnlyReference: Sendable { case value(Reference) }

private enum EmptyPayloads: Equatable, Sendable {
  case none
  case empty(Empty)
  case number(Int)
  case failure(Failure)
  case text(String)
}

private enum Generic<T: Sendable>: Sendable {
  case value(T)
  case list([T])
  case nothing
}

private enum WithExistential: Sendable {
  case failure(any Error & Sendable)
  case number(Int)
}

@Suite struct CasePathTests {
  @Test func extractsTheRightCaseAmongCasesWithTheSamePayloadType() {
    let first = CasePath(Action.first)
    let second = CasePath(Action.second)
    #expect(first.extract(from: .first(.b)) == .b)
    #expect(first.extract(from: .second(.b)) == nil)
    #expect(second.extract(from: .second(.a)) == .a)
    #expect(second.extract(from: .plain) == nil)
    #expect(first.embed(.a) == .first(.a))
  }

  @Test func extractsMultiplePayloadsLargePayloadsAndIndirectCases() {
    let pair = CasePath(Action.pair)
    #expect(pair.extract(from: .pair(1, "x")).map { "\($0.0)\($0.1)" } == "1x")
    #expect(CasePath(Action.big).extract(from: .big(Big())) == Big())
    #expect(CasePath(Action.nested).extract(from: .nested(.first(.a))) == .first(.a))
    #expect(CasePath(Action.nested).extract(from: .nested(.big(Big()))) == .big(Big()))
    #expect(CasePath(Action.error).extract(from: .error(.oops)) == .oops)
    #expect(CasePath(Action.optional).extract(from: .optional(nil)) == .some(nil))
    #expect(CasePath(Action.optional).extract(from: .optional(3)) == .some(3))
  }

  @Test func matchesCasesWithoutPayload() {
    let plain = CasePath(case: Action.plain)
    #expect(plain.extract(from: .plain) != nil)
    #expect(plain.extract(from: .other) == nil)
    #expect(plain.extract(from: .first(.a)) == nil)
  }

  @Test func handlesPayloadsWithoutBytes() {
    #expect(CasePath(EmptyPayloads.empty).extract(from: .empty(Empty())) == Empty())
    #expect(CasePath(EmptyPayloads.empty).extract(from: .failure(.oops)) == nil)
    #expect(CasePath(EmptyPayloads.failure).extract(from: .failure(.oops)) == .oops)
    #expect(CasePath(EmptyPayloads.number).extract(from: .number(7)) == 7)
    #expect(CasePath(EmptyPayloads.text).extract(from: .text("t")) == "t")
    #expect(CasePath(EmptyPayloads.text).extract(from: .none) == nil)
    #expect(CasePath(Generic<Empty>.value).extract(from: .value(Empty())) == Empty())
    #expect(CasePath(Generic<Empty>.value).extract(from: .nothing) == nil)
    #expect(CasePath(Generic<Empty>.list).extract(from: .list([Empty()])) == [Empty()])
  }

  @Test func worksOnGenericEnums() {
    #expect(CasePath(Generic<String>.value).extract(from: .value("hi")) == "hi")
    #expect(CasePath(Generic<String>.list).extract(from: .list(["a"])) == ["a"])
    #expect(CasePath(Generic<String>.value).extract(from: .list(["a"])) == nil)
    #expect(CasePath(Generic<Big>.value).extract(from: .value(Big())) == Big())
  }

  @Test func refusesAPayloadOfAnotherStaticType() {
    let concrete = CasePath<WithExistential, Failure>(
      embed: { .failure($0) }, extract: { _ in nil })
    #expect(concrete.extract(from: .failure(Failure.oops)) == nil)
    let existential = CasePath(WithExistential.failure)
    #expect(existential.extract(from: .failure(Failure.oops)) is Failure)
    #expect(existential.extract(from: .number(1)) == nil)
  }

  @Test func composesIntoDeeperPaths() {
    let path = CasePath(Action.nested).appending(Action.second)
    #expect(path.extract(from: .nested(.second(.b))) == .b)
    #expect(path.extract(from: .nested(.first(.b))) == nil)
    #expect(path.embed(.a) == .nested(.second(.a)))
  }

  @Test func modifiesInPlace() {
    var action = Action.first(.a)
    #expect(CasePath(Action.first).modify(&action) { $0 = .b })
    #expect(action == .first(.b))
    #expect(!CasePath(Action.second).modify(&action) { $0 = .a })
    #expect(action == .first(.b))
  }

  @Test func extractionDoesNotLeakOrOverRelease() {
    weak var weakReference: Reference?
    do {
      let reference = Reference()
      weakReference = reference
      let path = CasePath(Generic<Reference>.value)
      for _ in 0..<1000 { #expect(path.extract(from: .value(reference)) === reference) }
    }
    #expect(weakReference == nil)
  }

  @Test func readsAnEnumOfOneCaseAsItsPayload() {
    // Each level of a nested composition: an action that only wraps its child's.
    #expect(CasePath(OnlyChild.child).extract(from: .child(.b)) == .b)
    weak var weakReference: Reference?
    do {
      let reference = Reference()
      weakReference = reference
      let path = CasePath(OnlyReference.value)
      for _ in 0..<1000 { #expect(path.extract(from: .value(reference)) === reference) }
    }
    #expect(weakReference == nil)
  }

  @Test func theIdentityIsThePathFromAnActionToItself() {
    // `{ $0 }` embeds in no case: every value is on the path, as it is in a `Scope` that
    // passes its parent's actions on whole.
    let identity = CasePath<Child, Child> { $0 }
    #expect(identity.extract(from: .a) == .a)
    #expect(identity.extract(from: .b) == .b)
    #expect(identity.embed(.b) == .b)
    // An enum with a case that carries the enum itself keeps reading that case.
    #expect(CasePath(Action.nested).extract(from: .plain) == nil)
  }

  @Test func namesCases() {
    #expect(CasePath<Action, Child>.caseName(of: .first(.a)) == "first")
    #expect(CasePath<Action, Void>.caseName(of: .plain) == "plain")
  }
}
