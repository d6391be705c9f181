import FormsStore
import Foundation
import Synchronization

/// The one progress line: `migrate: checking [#####     ] 12000/40032  9521/s` on stderr, redrawn
/// at most ten times a second, only on a terminal and never with --quiet. A new phase replaces
/// the line; any other output clears it first (`FileHandleOutput.write`).
package final class ProgressLine: Sendable {
  /// The line of this process, if one is drawn.
  package static let active = Mutex<ProgressLine?>(nil)

  private let command: String
  private struct State {
    package var phase = ""
    package var started = Date()
    package var lastDrawn = Date.distantPast
    package var drawn = false
  }
  private let state = Mutex(State())

  package init(command: String) { self.command = command }

  /// A handler for the store's long operations, or nil when nothing should be drawn.
  package static func handler(quiet: Bool) -> ProgressHandler? {
    guard !quiet, FileHandleOutput.standardError.isTerminal else { return nil }
    let line = ProgressLine(command: CommandLine.arguments.dropFirst().first ?? "formsctl")
    active.withLock { $0 = line }
    return { phase, done, total in line.update(phase, done, total) }
  }

  package func update(_ phase: String, _ done: Int, _ total: Int) {
    state.withLock { state in
      let now = Date()
      if phase != state.phase {
        state.phase = phase
        state.started = now
        state.lastDrawn = .distantPast
      }
      guard done == total || now.timeIntervalSince(state.lastDrawn) > 0.1, total > 0 else { return }
      state.lastDrawn = now
      let width = 24
      let filled = width * min(done, total) / total
      let rate = Double(done) / max(now.timeIntervalSince(state.started), 0.001)
      FileHandleOutput.standardError.writeRaw(
        "\r\u{1B}[K\(command): \(phase) [\(String(repeating: "#", count: filled))"
          + "\(String(repeating: " ", count: width - filled))] \(done)/\(total)  \(Int(rate))/s")
      state.drawn = true
    }
  }

  /// Clears the line.
  package func finish() {
    state.withLock { state in
      if state.drawn { FileHandleOutput.standardError.writeRaw("\r\u{1B}[K") }
      state.drawn = false
    }
  }
}
