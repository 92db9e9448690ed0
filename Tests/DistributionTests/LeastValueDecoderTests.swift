import Examples
import Foundation
import Testing

@testable import BulkheadDistribution

/// The values a worker template rehearses a first run on: least values, an enum's first case,
/// nil where a type cannot be made so, and no endless recursion.
@Suite struct LeastValueDecoderTests {
  indirect enum Tree: Codable, Equatable {
    case node(Tree, Tree)
    case leaf
  }

  struct Mixed: Codable, Equatable {
    var count: Int
    var name: String
    var tags: [String]
    var note: String?
    var nested: DetailPresenter.Detail.State
  }

  @Test func aStructOfLeastValues() {
    #expect(LeastValueDecoder.sample(of: DetailPresenter.Detail.State.self) == .init(description: ""))
    #expect(
      LeastValueDecoder.sample(of: Mixed.self)
        == Mixed(count: 0, name: "", tags: [], note: nil, nested: .init(description: "")))
  }

  @Test func anEnumTakesItsFirstCaseWithAPayload() {
    #expect(LeastValueDecoder.sample(of: DetailPresenter.Detail.Action.self) == .descriptionChanged(""))
  }

  @Test func whatCannotBeMadeSoIsNil() {
    // A recursive enum's first case never ends: given up 32 deep, not a crash.
    #expect(LeastValueDecoder.sample(of: Tree.self) == nil)
    // UUID's own decoding refuses an empty string.
    #expect(LeastValueDecoder.sample(of: UUID.self) == nil)
    #expect(LeastValueDecoder.sample(of: NSObject.self) == nil)
  }
}
