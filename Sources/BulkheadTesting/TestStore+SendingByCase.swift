import Bulkhead

/// Sending by case: the forms TCA's tests write with case key paths (`\.path[id: 0].detail`),
/// spelled with the cases themselves, as Bulkhead's case paths and `receive` are.
extension TestStore {
  /// Sends the action of case `casePath` with `payload`, and asserts how it changed the state.
  ///
  /// ```swift
  /// await store.send(Action.view, .deleteTapped(id: 0)) { $0.rows = [] }
  /// await store.send(Action.destination, .dismiss) { $0.destination = nil }
  /// ```
  @discardableResult
  public func send<Value>(
    _ casePath: (Value) -> Action,
    _ payload: Value,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> TestStoreTask {
    await send(
      casePath(payload), assert: updateStateToExpectedResult, fileID: fileID, filePath: filePath,
      line: line, column: column)
  }

  /// Sends `action` to the element `id` of the stack whose actions are case `stack`.
  ///
  /// ```swift
  /// await store.send(Action.path, id: 0, .detail(.saveTapped)) { $0.path[id: 0] = … }
  /// ```
  @discardableResult
  public func send<ElementState, ElementAction>(
    _ stack: (StackAction<ElementState, ElementAction>) -> Action,
    id: StackElementID,
    _ action: ElementAction,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> TestStoreTask {
    await send(
      stack(.element(id: id, action: action)), assert: updateStateToExpectedResult, fileID: fileID,
      filePath: filePath, line: line, column: column)
  }

  /// Sends `action` to the element `id` of the collection whose actions are case `elements`.
  ///
  /// ```swift
  /// await store.send(Action.todos, id: todo.id, .toggled) { $0.todos[id: todo.id]?.isDone = true }
  /// ```
  @discardableResult
  public func send<ID, ElementAction>(
    _ elements: (IdentifiedAction<ID, ElementAction>) -> Action,
    id: ID,
    _ action: ElementAction,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> TestStoreTask {
    await send(
      elements(.element(id: id, action: action)), assert: updateStateToExpectedResult,
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Sends `action` to the child presented at case `presentation`, as `.presented(action)`.
  ///
  /// ```swift
  /// await store.send(Action.destination, .editor(.saveTapped)) { … }
  /// ```
  @discardableResult
  public func send<ChildAction>(
    _ presentation: (PresentationAction<ChildAction>) -> Action,
    _ action: ChildAction,
    assert updateStateToExpectedResult: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async -> TestStoreTask {
    await send(
      presentation(.presented(action)), assert: updateStateToExpectedResult, fileID: fileID,
      filePath: filePath, line: line, column: column)
  }
}
