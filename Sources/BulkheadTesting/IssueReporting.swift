import Testing
import XCTest

/// Where a test failure is reported: the caller's file, line and column.
struct TestLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }
}

/// Records a test failure at `location`, in whichever framework is running the test: Swift
/// Testing when it is, XCTest otherwise.
func reportIssue(_ message: String, at location: TestLocation) {
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
