import Bulkhead

/// The checklist of an errand, inside its detail sheet: add items, tick them, remove them.
///
/// ```swift
/// await store.send(.addItemTapped("Milk")) { $0.items = [Checklist.Item(id: 0, text: "Milk")]; $0.nextID = 1 }
/// ```
public struct Checklist: Reducer, Sendable {
  public struct Item: Equatable, Codable, Sendable, Identifiable {
    public let id: Int
    public var text: String
    public var isChecked = false
    public init(id: Int, text: String, isChecked: Bool = false) {
      (self.id, self.text, self.isChecked) = (id, text, isChecked)
    }
  }

  public struct State: Equatable, Codable, Sendable {
    public var items: IdentifiedArrayOf<Item> = []
    public var nextID = 0
    public init() {}
    /// How many items are ticked.
    public var checkedCount: Int { items.filter(\.isChecked).count }
  }

  /// Only what the user does: the checklist has no effects and tells its parent nothing.
  public enum Action: Equatable, Codable, Sendable {
    case addItemTapped(String)
    case itemToggled(id: Int)
    case removeItemTapped(id: Int)
  }

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .addItemTapped(text):
      state.items.append(Item(id: state.nextID, text: text))
      state.nextID += 1
    case let .itemToggled(id):
      state.items[id: id]?.isChecked.toggle()
    case let .removeItemTapped(id):
      state.items.remove(id: id)
    }
    return .none
  }
}
