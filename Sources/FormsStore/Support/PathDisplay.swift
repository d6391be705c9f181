/// Shows paths relative to the working directory when they are below it, as compilers do, so
/// terminals and editors can jump to them.
public struct PathDisplay: Sendable {
  public let workingDirectory: String

  public init(workingDirectory: String) {
    self.workingDirectory = FileIO.realPath(FilePath(workingDirectory))?.string ?? workingDirectory
  }

  @Sendable public func show(_ path: String) -> String {
    FilePath(workingDirectory).relative(FilePath(path)) ?? path
  }
}
