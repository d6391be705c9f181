import FormsCore
import FormsStore
import Foundation
import Synchronization

/// The server's diagnostics: each buffer checked by its store's service and published, and each
/// store's data directory watched so that changes on disk are published anew.
extension LanguageServer {
  // MARK: Diagnostics

  /// Checks the buffers `uris` and publishes what is found (an empty list clears a buffer's).
  func publish(_ uris: [String]) {
    publishing.withLock { _ in
      for uri in uris {
        guard let buffer = state.withLock({ $0.buffers[uri] }) else { continue }
        let params = diagnostics(uri: uri, buffer: buffer)
        let fresh = state.withLock { state -> Bool in
          // Closed meanwhile, or the same as last time: nothing to say.
          guard state.buffers[uri] != nil, state.published[uri] != params else { return false }
          state.published[uri] = params
          return true
        }
        if fresh { notify("textDocument/publishDiagnostics", params) }
      }
    }
  }

  /// What `textDocument/publishDiagnostics` says of `buffer`.
  func diagnostics(uri: String, buffer: Buffer) -> JSONValue {
    let problems: [LanguageService.Problem]
    if buffer.text.count > FileIO.maxFileSize {
      // The store refuses such a document: say so at once instead of parsing and validating it.
      let message =
        "the text is \(buffer.text.count) bytes, more than the limit of \(FileIO.maxFileSize) bytes (64 MiB); not checked"
      problems = [
        LanguageService.Problem(
          diagnostic: Diagnostic(file: buffer.path, position: nil, rule: "read", message: message), range: 0..<0)
      ]
    } else {
      problems = service(for: buffer.path)?.diagnose(path: buffer.path, text: buffer.text) ?? []
    }
    let severities: [Diagnostic.Severity: Int] = [.error: 1, .warning: 2, .note: 3]
    // One index for all the diagnostics, not one each; none for a text that was not checked.
    let lines = LineIndex(buffer.text.count > FileIO.maxFileSize ? [] : buffer.text)
    let diagnostics = problems.map { problem -> JSONValue in
      let path = problem.diagnostic.pointer.path
      return .object(
        JSONObject([
          "range": range(problem.range, lines: lines),
          "severity": .number(JSONNumber(severities[problem.diagnostic.severity] ?? 1)),
          "code": .string(problem.diagnostic.rule), "source": .string("formsctl"),
          "message": .string((path.isEmpty ? "" : path + ": ") + problem.diagnostic.message),
        ]))
    }
    var params = JSONObject(["uri": .string(uri), "diagnostics": .array(diagnostics)])
    if let version = buffer.version { params["version"] = .number(JSONNumber(version)) }
    return .object(params)
  }

  /// The diagnostics the server would publish for the file at `path` as it is on disk (UTF-16
  /// positions): what `formsctl lsp --diagnose` prints to check an editor's view from a terminal.
  public func diagnostics(ofFile path: String) throws(StoreError) -> JSONValue {
    let text = try FileIO.read(FilePath(path))
    return diagnostics(uri: Self.uri(of: path), buffer: Buffer(path: path, text: text, version: nil))
  }

  /// The service of the store `path` belongs to, opened again when its descriptors changed on
  /// disk: the store around the file, else the server's own (`--store`, `FORMSCTL_STORE`, or the
  /// working directory's), whose descriptors may live outside it (`schemas: ../schemas`).
  func service(for path: String) -> LanguageService? {
    var candidates: [StoreLayout] = []
    for (explicit, environment, directory) in [(nil, [:], FilePath(path).parent.string), home] {
      do {
        candidates.append(
          try StoreLayout.locate(explicit: explicit, environment: environment, workingDirectory: directory))
      } catch {
        continue  // no store there
      }
    }
    var first: LanguageService?
    for layout in candidates {
      guard let service = open(layout) else { continue }
      if service.role(of: path) != .other { return service }
      first = first ?? service
    }
    return first
  }

  /// The service of the store at `layout`, from the cache while its manifest and descriptors are unchanged.
  func open(_ layout: StoreLayout) -> LanguageService? {
    let signature = Self.descriptorSignature(layout)
    // A manifest read anew that says something else (roles, recipients, directories) opens it again too.
    if let known = state.withLock({ $0.workspaces[layout.root] }), known.descriptors == signature,
      known.service.store.layout == layout
    {
      return known.service
    }
    let store: Store
    var configuration = Store.Configuration()
    configuration.display = PathDisplay(workingDirectory: layout.root).show  // messages name files from the store
    do { store = try Store.open(layout, configuration: configuration) } catch { return nil }
    let service = LanguageService(store: store)
    state.withLock { $0.workspaces[layout.root] = Workspace(service: service, descriptors: signature) }
    return service
  }

  static func descriptorSignature(_ layout: StoreLayout) -> [String: FileStamp?] {
    var out: [String: FileStamp?] = [:]
    let files: [String]
    do {
      files = try FileIO.walk(layout.schemasPath, suffix: ".yaml", followingTop: true).files
    } catch {
      return out  // the registry's load reports what cannot be listed
    }
    for file in files { out[file] = FileStamp(FilePath(file)) }
    return out
  }

  /// Watches the data directory of `path`'s store (once per store): a change on disk checks the
  /// open buffers again.
  func watch(_ path: String) {
    guard let service = service(for: path) else { return }
    let root = service.store.layout.root
    let cancellation = WatchCancellation()
    let started = state.withLock { state -> Bool in
      guard state.watches[root] == nil else { return false }
      state.watches[root] = cancellation
      return true
    }
    guard started else { return }
    // What changed on disk before the watch's first look is not reported: check every buffer
    // again once it has looked.
    var withReady = watchOptions
    withReady.ready = { [weak self] in self?.publish(self?.state.withLock { Array($0.buffers.keys) } ?? []) }
    let options = withReady
    let thread = Thread { [weak self] in
      do throws(StoreError) {
        try service.store.watchChanges(options: options, cancellation: cancellation) { _ in
          guard let self else { return cancellation.cancel() }
          self.publish(self.state.withLock { Array($0.buffers.keys) })
        }
      } catch {
        // Without a watch, buffers are checked again on every change and save instead.
        self?.notify(
          "window/logMessage",
          .object(
            JSONObject([
              "type": .number(JSONNumber(2)),
              "message": .string("formsctl: not watching \(root): \(error.description)"),
            ])))
      }
    }
    thread.name = "formsctl lsp watch"
    thread.start()
  }
}
