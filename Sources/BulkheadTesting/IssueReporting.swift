import Testing
import XCTest

/// Where a test failure is reported: the caller's file, line and column.
public struct TestLocation: Sendable {
  public let fileID: StaticString
  public let filePath: StaticString
  public let line: UInt
  public let column: UInt

  public init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }
}

/// Records a test failure at `location`, in whichever framework is running the test: Swift
/// Testing when it is, XCTest otherwise.
public func reportIssue(_ message: String, at location: TestLocation) {
  if Test.current != nil {
    Issue.record(
      Comment(rawValue: message),
      sourceLocation: Testing.SourceLocation(
        fileID: "\(location.fileID)", filePath: "\(location.filePath)",
        line: Int(location.line), column: Int(location.column)))
  } else {
    XCTFail(message, file: location.filePath, line: location.line)
  }
}
