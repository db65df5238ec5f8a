"""Messages that travel between the TUI's widgets and screens, named after what happened.

Widgets post these and let a screen (or the app) decide what to do, rather than reaching into
each other: an answer card does not know that choosing a related topic asks it in the chat, and
the entry screen uses the same message to browse instead.
"""

from __future__ import annotations

from textual.message import Message


class QuestionAsked(Message):
    """The user asked a question (typed, recalled or picked from the suggestions).

    Args:
        text: The question as it will be shown in the conversation.
        topic: When a suggestion was picked, the topic it stands for; the answer is then that
            topic rather than whatever the search ranks first.
    """

    def __init__(self, text: str, topic: str | None = None) -> None:
        super().__init__()
        self.text = text
        self.topic = topic


class TopicChosen(Message):
    """The user chose a topic by id: a related follow-up or a "did you mean" choice.

    Args:
        topic: Entry id.
        lang: Language the choice was shown in, so the answer stays in it.
        question: For a "did you mean" choice, the question it was offered for.
    """

    def __init__(self, topic: str, lang: str | None, question: str | None = None) -> None:
        super().__init__()
        self.topic = topic
        self.lang = lang
        self.question = question


class EntryOpenRequested(Message):
    """The user asked to read an entry full-screen.

    Args:
        topic: Entry id.
        lang: Preferred language of the entry.
    """

    def __init__(self, topic: str, lang: str | None) -> None:
        super().__init__()
        self.topic = topic
        self.lang = lang


class WizardRequested(Message):
    """The user chose to go on to a recommendation from an answer, with the wizard's questions its
    question already settles given.

    Args:
        answers: (key, value) of each question given ("k8s for 1 notebook?": workload=notebook).
    """

    def __init__(self, answers: tuple[tuple[str, str], ...]) -> None:
        super().__init__()
        self.answers = answers
