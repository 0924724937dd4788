"""deltacheck adapters for LangChain chat models (langchain-openai, langchain-anthropic)."""
