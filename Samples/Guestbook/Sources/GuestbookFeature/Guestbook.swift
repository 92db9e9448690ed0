import Bulkhead
import Foundation

/// A guestbook: the entries visitors signed, and a composer sheet (an `ifLet` child) where
/// one writes a new entry.
public struct Guestbook: Reducer {
  public struct State: Equatable, Codable, Sendable {
    public var entries: IdentifiedArrayOf<Entry>
    public var composer: Composer.State?

    public init(entries: IdentifiedArrayOf<Entry> = [], composer: Composer.State? = nil) {
      self.entries = entries
      self.composer = composer
    }
  }

  public enum Action: Equatable, Codable, Sendable {
    case signButtonTapped
    case composer(Composer.Action)
  }

  public init() {}

  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .signButtonTapped:
        state.composer = Composer.State()
        return .none
      case let .composer(.delegate(.signed(entry))):
        state.entries.append(entry)
        state.composer = nil
        return .none
      case .composer(.delegate(.cancelled)):
        state.composer = nil
        return .none
      case .composer:
        return .none
      }
    }
    .ifLet(\.composer, action: Action.composer) { Composer() }
  }
}

/// One signature in the guestbook.
public struct Entry: Equatable, Codable, Sendable, Identifiable {
  public let id: UUID
  public var name: String
  public var message: String
  public var signedAt: Date

  public init(id: UUID, name: String, message: String, signedAt: Date) {
    self.id = id
    self.name = name
    self.message = message
    self.signedAt = signedAt
  }
}
