import BulkheadTools

// Host and worker in one binary: `guestbook --app guestbook --placement placements/guestbook.placement`
// runs the app and starts this same executable again for the composer.
await HostCommand.main(apps: [.guestbook])
