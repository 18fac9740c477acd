"""The two published games from piped input, on every engine: the real screen text.

With keys from a pipe a KBSR poll finds the next key at once, so 2048 seeds its random
numbers the same way every run (as the C VM does with piped input) and rogue, which never
polls, draws the same maze every time: the screens below are what the games print.
"""

from __future__ import annotations

import collections
import re
from pathlib import Path

from typer.testing import CliRunner, Result

from lc3jit.cli import app

from .conftest import engine_options

EXAMPLES = Path(__file__).parent.parent / "examples"
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
CLEAR_SCREEN = "\x1b[2J\x1b[H\x1b[3J"


def play(engine: str, game: str, keys: str) -> Result:
    """`lc3jit run examples/GAME.obj` with keys piped in."""
    args = ["run", str(EXAMPLES / game), *engine_options(engine)]
    return CliRunner().invoke(app, args, input=keys.encode(), catch_exceptions=False)


#: A 2048 board: a border, then four rows of cells between empty lines, then a border.
BOARD = re.compile(r"\+-{26}\+\n((?:\|.{26}\|\n){9})\+-{26}\+\n")


def boards(screen: str) -> list[list[list[int]]]:
    """Every 2048 board on the screen, as rows of tile values (0 for an empty cell)."""
    found = []
    for match in BOARD.finditer(ANSI_ESCAPE.sub("", screen)):
        rows = match[1].splitlines()[1::2]
        found.append([[int(row[2 + 6 * i : 8 + 6 * i].strip() or 0) for i in range(4)] for row in rows])
    return found


INTRO_2048 = "Control the game using WASD keys.\nAre you on an ANSI terminal (y/n)? "

FIRST_BOARD_2048 = """\
+--------------------------+
|                          |
|         2                |
|                          |
|                          |
|                          |
|   2                      |
|                          |
|                          |
|                          |
+--------------------------+
"""


def test_2048_asks_about_ansi_then_draws_the_first_board(engine: str) -> None:
    result = play(engine, "2048.obj", "n")
    assert result.stdout == INTRO_2048 + "n\n" + FIRST_BOARD_2048
    assert result.exit_code == 5
    assert result.stderr.endswith("input ended while the program waits for a key\n")


def test_2048_moves_slide_and_merge_tiles(engine: str) -> None:
    """a, d, w, s: every move that changes the board redraws it with one new 2 or 4."""
    assert boards(play(engine, "2048.obj", "nadws").stdout) == [
        [[0, 2, 0, 0], [0, 0, 0, 0], [2, 0, 0, 0], [0, 0, 0, 0]],
        [[2, 0, 0, 0], [0, 0, 0, 2], [2, 0, 0, 0], [0, 0, 0, 0]],  # a: to the left; a new 2
        [[0, 0, 0, 2], [0, 0, 0, 2], [0, 0, 0, 2], [0, 0, 0, 2]],  # d: to the right; a new 2
        [[0, 0, 0, 4], [0, 0, 0, 4], [0, 0, 0, 0], [0, 0, 0, 2]],  # w: 2+2 twice; a new 2
        [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 8], [0, 0, 2, 2]],  # s: 4+4 over the 2; a new 2
    ]


def test_2048_ignores_keys_that_are_not_moves(engine: str) -> None:
    assert boards(play(engine, "2048.obj", "nxq ").stdout) == boards(play(engine, "2048.obj", "n").stdout)


def test_2048_asks_again_after_a_wrong_answer_and_clears_an_ansi_screen(engine: str) -> None:
    screen = play(engine, "2048.obj", "xy").stdout
    assert screen.startswith(
        INTRO_2048 + "x\nx is not a valid input.\n\n" + "Are you on an ANSI terminal (y/n)? y\n"
    )
    assert screen.count(CLEAR_SCREEN) == 1
    assert boards(screen) == boards(FIRST_BOARD_2048)


def test_2048_with_no_input_stops_at_the_ansi_question(engine: str) -> None:
    result = play(engine, "2048.obj", "")
    assert (result.exit_code, result.stdout) == (5, INTRO_2048)
    assert result.stderr.endswith("input ended while the program polls KBSR\n")


def test_2048_lost_game_halts_when_the_player_declines_another(engine: str) -> None:
    """Cycling w, a, s, d fills the board; after the loss, n answers "play again?"."""
    result = play(engine, "2048.obj", "n" + "wasdn" * 400)
    screen = result.stdout
    assert screen.endswith("\nYou lost :(\n\nWould you like to play again (y/n)? n\nHALT\n")
    assert result.exit_code == 0
    last = boards(screen)[-1]
    assert all(all(row) for row in last)  # full
    assert all(row[i] != row[i + 1] for row in last for i in range(3))  # nothing merges sideways
    assert all(last[j][i] != last[j + 1][i] for j in range(3) for i in range(4))  # nor up or down


WELCOME_ROGUE = "Welcome to LC3 Rogue.\nUse WSAD to move.\nPress any key..\n"

#: The first dungeon, "." for open floor (the screen shows a space).
FIRST_MAZE = """\
##################..############
###################.....########
#######################........#
########################..#..#..
###############################D
################################
################################
@.##############################
#..#############################
##....##########################
#####..#########################
######..########################
#######...######################
#########....###################
############..##..##############
#############......#############
""".replace(".", " ")


def mazes(screen: str) -> list[str]:
    """Every rogue maze on the screen: 16 rows of 32 cells after a clear-screen."""
    return [part.split("\n\n")[0] + "\n" for part in screen.split(CLEAR_SCREEN)[1:]]


def test_rogue_welcomes_and_waits_for_a_key(engine: str) -> None:
    result = play(engine, "rogue.obj", "")
    assert (result.exit_code, result.stdout) == (5, WELCOME_ROGUE)


def test_rogue_draws_its_maze_after_any_key(engine: str) -> None:
    result = play(engine, "rogue.obj", "x")
    assert result.stdout == WELCOME_ROGUE + CLEAR_SCREEN + FIRST_MAZE + "\n"
    assert result.exit_code == 5


def test_rogue_walls_block_and_other_keys_are_ignored(engine: str) -> None:
    """From x=0, y=7: w and s hit walls (the maze is drawn again), q is no move, d moves."""
    screens = mazes(play(engine, "rogue.obj", "xwsqd").stdout)
    assert screens[:3] == [FIRST_MAZE] * 3
    moved = FIRST_MAZE.replace("@ #", " @#")
    assert screens[3:] == [moved]


def path_to_door(maze: str) -> str:
    """The keys that walk from @ to D on a maze screen (rows wrap around, columns do not)."""
    rows = maze.splitlines()
    start = next((x, y) for y, row in enumerate(rows) for x, cell in enumerate(row) if cell == "@")
    steps = {"w": (0, -1), "s": (0, 1), "a": (-1, 0), "d": (1, 0)}
    paths = {start: ""}
    queue = collections.deque([start])
    while queue:
        x, y = queue.popleft()
        if rows[y][x] == "D":
            return paths[(x, y)]
        for key, (dx, dy) in steps.items():
            nxt = (x + dx, (y + dy) % len(rows))
            if 0 <= nxt[0] < len(rows[0]) and rows[nxt[1]][nxt[0]] != "#" and nxt not in paths:
                paths[nxt] = paths[(x, y)] + key
                queue.append(nxt)
    raise AssertionError("no way to the door")


WIN_ROGUE = "You survived!\nOn to another dungeon? (n)o or any key to continue.\n"


def test_rogue_reaching_the_door_wins_and_n_halts(engine: str) -> None:
    walk = path_to_door(FIRST_MAZE)
    result = play(engine, "rogue.obj", "x" + walk + "n")
    assert result.stdout.endswith(WIN_ROGUE + "HALT\n")
    assert result.exit_code == 0
    assert len(mazes(result.stdout)) == len(walk)  # one after the first key, one a step but onto the door


def test_rogue_any_other_key_after_winning_builds_a_new_dungeon(engine: str) -> None:
    result = play(engine, "rogue.obj", "x" + path_to_door(FIRST_MAZE) + "y")
    after_win = result.stdout.split(WIN_ROGUE)[1]
    new_maze = mazes(after_win)[0]
    assert new_maze != FIRST_MAZE
    assert path_to_door(new_maze)
    assert result.exit_code == 5
