"""The duelling club: sign-ups (1v1 and 2v2 desks), the leaderboard and rewards, the club's own
posts and the bot's PM inbox. See docs/architecture.md."""
