import Bulkhead

/// The first tab: the errands, one row each (every row saves its own edits after a pause),
/// a button that creates an errand on the server, and one presented destination — an
/// errand's detail as a sheet, or an alert when the server refused a save or a creation.
/// The app can ask it to mark errands done: it saves them one after the other.
///
/// ```swift
/// await store.send(.view(.errandTapped(id: 0))) { $0.destination = .detail(ErrandDetail.State(errand: milk)) }
/// ```
public struct ErrandList: Reducer, Sendable {
  public struct State: Equatable, Codable, Sendable {
    public var rows: IdentifiedArrayOf<ErrandRow.State>
    /// The id the next created errand gets: the app chooses, the server keeps it.
    public var nextID: Int
    /// How many creations the server has not answered yet.
    public var creating = 0
    @PresentationState public var destination: Destination.State?

    public init(errands: [Errand] = []) {
      rows = IdentifiedArray(errands.map(ErrandRow.State.init))
      nextID = (errands.map(\.id).max() ?? -1) + 1
    }
  }

  public enum Action: Equatable, Codable, Sendable {
    case view(View)
    case _internal(Internal)
    case rows(IdentifiedActionOf<ErrandRow>)
    case destination(PresentationAction<Destination.Action>)
    /// The app's request: mark these errands done and save them.
    case markDone(ids: [Int])

    public enum View: Equatable, Codable, Sendable {
      case addButtonTapped(title: String)
      case errandTapped(id: Int)
      case deleteTapped(id: Int)
    }
    public enum Internal: Equatable, Codable, Sendable {
      case created(Errand)
      case createFailed(title: String, APIError)
      case markedDone(Errand)
      case markDoneFailed(Errand, APIError)
    }
  }

  /// What the list presents: the detail sheet, or an alert.
  public struct Destination: Reducer, Sendable {
    public enum State: Equatable, Codable, Sendable {
      case detail(ErrandDetail.State)
      case alert(AlertState<Alert>)
    }

    public enum Action: Equatable, Codable, Sendable {
      case detail(ErrandDetail.Action)
      case alert(Alert)
    }

    public enum Alert: Equatable, Codable, Sendable {
      case retrySave(id: Int)
      case retryCreate(title: String)
    }

    public init() {}

    public var body: some Reducer<State, Action> {
      Scope(state: State.detail, action: Action.detail) { ErrandDetail() }
    }
  }

  @Dependency(\.errandsAPI) var api

  public init() {}

  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case let .view(.addButtonTapped(title)), let .destination(.presented(.alert(.retryCreate(title)))):
        let id = state.nextID
        state.nextID += 1
        state.creating += 1
        return .run { [api] send in
          await send(._internal(.created(try await api.create(id, title))))
        } catch: { error, send in
          await send(._internal(.createFailed(title: title, APIError(error))))
        }
      case let .view(.errandTapped(id)):
        guard let row = state.rows[id: id] else { return .none }
        state.destination = .detail(ErrandDetail.State(errand: row.errand))
        return .none
      case let .view(.deleteTapped(id)):
        state.rows.remove(id: id)
        return .none
      case let ._internal(.created(errand)):
        state.creating -= 1
        state.rows.append(ErrandRow.State(errand: errand))
        return .none
      case let ._internal(.createFailed(title, error)):
        state.creating -= 1
        // An alert would take the place of an open sheet: the user is busy there.
        if state.destination == nil { state.destination = .alert(.createFailed(title: title, error)) }
        return .none
      case let .markDone(ids):
        var errands: [(Errand, attempt: Int)] = []
        for id in ids {
          guard var row = state.rows[id: id] else { continue }
          row.errand.isDone = true
          row.status = .saving
          state.rows[id: id] = row
          errands.append((row.errand, row.failedSaves))
        }
        // One save after the other, in one effect: saves started together could answer at one
        // instant, and effects in different processes that wake together arrive in either order.
        return .run { [api, errands] send in
          for (errand, attempt) in errands {
            do {
              await send(._internal(.markedDone(try await api.save(errand, attempt))))
            } catch is CancellationError {
              return
            } catch {
              await send(._internal(.markDoneFailed(errand, APIError(error))))
            }
          }
        }
      case let ._internal(.markedDone(errand)):
        state.rows[id: errand.id]?.errand.revision = errand.revision
        state.rows[id: errand.id]?.status = .saved
        state.rows[id: errand.id]?.failedSaves = 0
        return .none
      case let ._internal(.markDoneFailed(errand, error)):
        state.rows[id: errand.id]?.status = .failed(error)
        state.rows[id: errand.id]?.failedSaves += 1
        if state.destination == nil { state.destination = .alert(.saveFailed(errand, error)) }
        return .none
      case let .rows(.element(_, .delegate(.saveFailed(errand, error)))):
        if state.destination == nil { state.destination = .alert(.saveFailed(errand, error)) }
        return .none
      case let .destination(.presented(.alert(.retrySave(id)))):
        return .send(.rows(.element(id: id, action: .view(.retryTapped))))
      case let .destination(.presented(.detail(.delegate(.saved(errand))))):
        state.rows[id: errand.id]?.errand = errand
        return .none
      case .rows, .destination:
        return .none
      }
    }
    .forEach(\.rows, action: Action.rows) { ErrandRow() }
    .ifLet(\.$destination, action: Action.destination) { Destination() }
  }
}

extension AlertState where Action == ErrandList.Destination.Alert {
  /// Says that `errand` was not saved, and offers to try again.
  public static func saveFailed(_ errand: Errand, _ error: APIError) -> Self {
    AlertState {
      TextState("\"\(errand.title)\" was not saved")
    } actions: {
      ButtonState(action: .retrySave(id: errand.id)) { TextState("Try again") }
      ButtonState(role: .cancel) { TextState("Later") }
    } message: {
      TextState(error.description)
    }
  }

  /// Says that the errand `title` was not created, and offers to try again.
  public static func createFailed(title: String, _ error: APIError) -> Self {
    AlertState {
      TextState("\"\(title)\" was not created")
    } actions: {
      ButtonState(action: .retryCreate(title: title)) { TextState("Try again") }
      ButtonState(role: .cancel) { TextState("Cancel") }
    } message: {
      TextState(error.description)
    }
  }
}
